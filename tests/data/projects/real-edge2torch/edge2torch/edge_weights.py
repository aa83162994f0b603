from typing import cast

import pandas as pd
from torch import nn

from .nn.blocks import FeedforwardLayerBlock
from .nn.masked_linear import ConstrainedMaskedLinear, MaskedLinear
from .nn.model import EdgeModel, StateUpdateEdgeModel
from .utils.constants import PSEUDO_NODE_PREFIX
from .utils.errors import Edge2TorchError


def edge_weights(model: nn.Module) -> pd.DataFrame:
    """
    Return the effective forward-pass weight of each original graph edge.

    Compiled models store weights in backend-specific masked linear layers.
    Unconstrained layers, constrained layers, and feedforward skip-edge
    expansion all use different internal layouts. This helper maps those
    internals back to the original named ``source`` / ``target`` edges.

    Weights are the values used during the forward pass, including
    softplus/fixed transforms when edge constraints are present. Pseudo-node
    routing edges used internally by the feedforward backend are omitted.

    The compiled core is found the same way node interpretation finds a
    site provider: ``compile_graph()`` models, ``customize_model()``
    wrappers, and manual wrappers that register the compiled model as a
    submodule all work.

    Parameters
    ----------
    model : nn.Module
        PyTorch model returned by ``compile_graph()``, optionally wrapped by
        ``customize_model()`` or another ``nn.Module`` that keeps the compiled
        model as a registered submodule.

    Returns
    -------
    pd.DataFrame
        Table with columns ``source``, ``target``, and ``weight``. Rows follow
        the original compiled edgelist order. ``weight`` is the effective
        scalar used for that edge in the forward pass.

    Raises
    ------
    Edge2TorchError
        If no compiled ``EdgeModel`` / ``StateUpdateEdgeModel`` is found in
        ``model``, or an original edge cannot be mapped onto the compiled
        weights.

    Examples
    --------
    >>> import pandas as pd
    >>> from edge2torch import compile_graph, edge_weights
    >>>
    >>> edgelist = pd.DataFrame(
    ...     {
    ...         "source": ["feature_a", "feature_b", "hidden"],
    ...         "target": ["hidden", "hidden", "prediction"],
    ...     }
    ... )
    >>> model, _ = compile_graph(edgelist)
    >>>
    >>> table = edge_weights(model)
    >>> list(table.columns)
    ['source', 'target', 'weight']
    """
    _validate_edge_weights_model(model)

    compiled_model = _unwrap_compiled_model(model)
    original_edges = _original_edges(compiled_model)

    sources: list[str] = []
    targets: list[str] = []
    weights: list[float] = []

    for row in original_edges.itertuples(index=False):
        source = str(row.source)
        target = str(row.target)
        sources.append(source)
        targets.append(target)
        weights.append(
            _lookup_original_edge_weight(
                model=compiled_model,
                source=source,
                target=target,
            )
        )

    return pd.DataFrame(
        {
            "source": sources,
            "target": targets,
            "weight": weights,
        }
    )


def _validate_edge_weights_model(model: object) -> None:
    """
    Validate the public input of ``edge_weights()``.
    """
    if not isinstance(model, nn.Module):
        raise Edge2TorchError("'model' must be a torch.nn.Module.")


def _unwrap_compiled_model(
    model: nn.Module,
) -> EdgeModel | StateUpdateEdgeModel:
    """
    Find the compiled ``EdgeModel`` or ``StateUpdateEdgeModel`` in ``model``.

    ``model.modules()`` includes ``model`` itself, so raw compiled models
    match immediately. ``customize_model()`` wrappers and manual wrappers
    that register the compiled model as a submodule match the first compiled
    core among their descendants.
    """
    for module in model.modules():
        if isinstance(module, (EdgeModel, StateUpdateEdgeModel)):
            return module

    raise Edge2TorchError(
        "'model' must be a compiled edge2torch model, a model returned by "
        "customize_model(), or a wrapper that keeps the compiled model as a "
        "registered PyTorch submodule."
    )


def _original_edges(model: EdgeModel | StateUpdateEdgeModel) -> pd.DataFrame:
    """
    Return the original named-edge table stored on the compiled model.
    """
    execution_plan = getattr(model, "_execution_plan", None)
    original_edges = getattr(execution_plan, "original_edges", None)

    if not isinstance(original_edges, pd.DataFrame):
        raise Edge2TorchError(
            "Compiled model is missing original edge metadata."
        )

    if not {"source", "target"}.issubset(original_edges.columns):
        raise Edge2TorchError(
            "Compiled original edges must contain 'source' and 'target'."
        )

    return original_edges


def _lookup_original_edge_weight(
    model: EdgeModel | StateUpdateEdgeModel,
    source: str,
    target: str,
) -> float:
    """
    Return the effective forward-pass weight of one original graph edge.
    """
    if isinstance(model, StateUpdateEdgeModel):
        return _state_update_edge_weight(
            model=model,
            source=source,
            target=target,
        )

    return _feedforward_edge_weight(
        model=model,
        source=source,
        target=target,
    )


def _state_update_edge_weight(
    model: StateUpdateEdgeModel,
    source: str,
    target: str,
) -> float:
    """
    Look up one original edge in the shared state-update linear layer.
    """
    try:
        source_idx = model.node_index[source]
        target_idx = model.node_index[target]
    except KeyError as exc:
        raise Edge2TorchError(
            f"Original edge '{source}' -> '{target}' is not in the compiled "
            "graph."
        ) from exc

    return _effective_entry(
        linear=model.state_linear,
        source_idx=source_idx,
        target_idx=target_idx,
        source=source,
        target=target,
    )


def _feedforward_edge_weight(
    model: EdgeModel,
    source: str,
    target: str,
) -> float:
    """
    Look up one original edge in the feedforward block that realizes it.

    Adjacent edges map directly onto a layer block. Skip edges are expanded
    through pseudo nodes; the learned weight lives on the last hop onto the
    original target because earlier pseudo outputs are overwritten with copied
    activations.
    """
    compiled_source, compiled_target = _feedforward_compiled_endpoints(
        model=model,
        source=source,
        target=target,
    )

    for block_module in model.blocks:
        block = cast(FeedforwardLayerBlock, block_module)
        if compiled_source not in block.input_node_names:
            continue
        if compiled_target not in block.output_node_names:
            continue

        source_idx = block.input_node_names.index(compiled_source)
        target_idx = block.output_node_names.index(compiled_target)
        return _effective_entry(
            linear=block.linear,
            source_idx=source_idx,
            target_idx=target_idx,
            source=source,
            target=target,
        )

    raise Edge2TorchError(
        f"Original edge '{source}' -> '{target}' is not in the compiled graph."
    )


def _feedforward_compiled_endpoints(
    model: EdgeModel,
    source: str,
    target: str,
) -> tuple[str, str]:
    """
    Map an original edge onto the compiled source and target node names.
    """
    node_to_layer = getattr(model._execution_plan, "node_to_layer", None)
    if not isinstance(node_to_layer, dict):
        raise Edge2TorchError(
            "Feedforward model is missing layer assignment metadata."
        )

    try:
        source_layer = str(node_to_layer[source])
        target_layer = str(node_to_layer[target])
    except KeyError as exc:
        raise Edge2TorchError(
            f"Original edge '{source}' -> '{target}' is not in the compiled "
            "graph."
        ) from exc

    source_depth = _layer_index(source_layer)
    target_depth = _layer_index(target_layer)
    depth_gap = target_depth - source_depth

    if depth_gap == 1:
        return source, target

    if depth_gap > 1:
        compiled_source = (
            f"{PSEUDO_NODE_PREFIX}{source}__{target}__layer_{target_depth - 1}"
        )
        return compiled_source, target

    raise Edge2TorchError(
        f"Original edge '{source}' -> '{target}' is not in the compiled graph."
    )


def _layer_index(layer_name: str) -> int:
    """
    Parse a feedforward layer name such as ``layer_2``.
    """
    if not layer_name.startswith("layer_"):
        raise Edge2TorchError(f"Invalid layer name '{layer_name}'.")

    try:
        return int(layer_name.split("_")[1])
    except (IndexError, ValueError) as exc:
        raise Edge2TorchError(f"Invalid layer name '{layer_name}'.") from exc


def _effective_entry(
    linear: MaskedLinear | ConstrainedMaskedLinear,
    source_idx: int,
    target_idx: int,
    source: str,
    target: str,
) -> float:
    """
    Read one effective weight from a masked linear layer.
    """
    if not hasattr(linear, "effective_weight"):
        raise Edge2TorchError(
            f"Cannot read the effective weight of edge '{source}' -> "
            f"'{target}'."
        )

    weight_matrix = linear.effective_weight
    return float(weight_matrix[target_idx, source_idx].detach().cpu())
