from typing import Any

from .interpret.captum_adapter import run_captum_interpretation
from .interpret.input_validation import validate_interpret_model_inputs
from .interpret.method_registry import (
    DEFAULT_FEATURE_METHOD,
    DEFAULT_NODE_METHOD,
)
from .interpret.prepare_input import prepare_interpretation_input
from .interpret.result import InterpretationResult


def interpret_model(
    model: Any,
    artifact: Any,
    data: Any,
    on: str = "features",
    method: str | None = None,
    constructor_kwargs: dict[str, Any] | None = None,
    attribute_kwargs: dict[str, Any] | None = None,
) -> InterpretationResult:
    """
    Interpret a model compiled by edge2torch using a Captum attribution
    method.

    Parameters
    ----------
    model : Any
        PyTorch model returned by ``compile_graph()``, optionally customized
        and trained by the user.
    artifact : Any
        Compilation artifact returned by ``compile_graph()``.
    data : pd.DataFrame | anndata.AnnData | torch.Tensor
        Input data used for attribution. Named containers are aligned to
        ``artifact.feature_names``: required features may appear in any
        order, extra columns or AnnData variables are ignored, and missing
        required features raise an error. Tensor inputs are validated by
        shape only and are assumed to already follow
        ``artifact.feature_names`` order.
    on : str, default="features"
        What to attribute onto. Use ``"features"`` to attribute predictions
        to input features. Use ``"nodes"`` to attribute predictions to named
        graph nodes. This is not Captum's output-index ``target`` argument;
        pass that through ``attribute_kwargs={"target": ...}``.
    method : str | None, default=None
        Captum attribution method name. Method names follow Captum class
        names exactly and are case-sensitive, for example
        ``"IntegratedGradients"``, ``"Saliency"``, ``"DeepLift"``,
        ``"LayerConductance"``, or ``"LayerIntegratedGradients"``.

        When omitted, ``on="features"`` uses
        ``IntegratedGradients`` and ``on="nodes"`` uses
        ``LayerConductance``. An explicit method must be compatible with
        ``on``. If an unsupported method is provided, edge2torch
        raises an error listing the supported method names.
    constructor_kwargs : dict[str, Any] | None, default=None
        Optional keyword arguments passed directly to the constructor of the
        selected Captum attribution class. These arguments are passed through
        unchanged and are not interpreted, validated, or modified by
        edge2torch. Refer to the Captum documentation for the selected method
        to determine which constructor arguments are supported.
    attribute_kwargs : dict[str, Any] | None, default=None
        Optional keyword arguments passed directly to the selected Captum
        method's ``attribute()`` call. These arguments are passed through
        unchanged and are not interpreted, validated, or modified by
        edge2torch. Refer to the Captum documentation for the selected method
        to determine which attribution arguments are supported.

    Returns
    -------
    InterpretationResult
        Attribution result for the selected ``on`` value.

        If ``on="features"``, use ``result.table``. That DataFrame has
        rows as examples and columns as features. Values are signed
        Captum scores.

        If ``on="nodes"``, use ``result.sites`` for one table per
        interpretation site. Each table contains the visible graph nodes
        the compiler exposes at that site (pseudo and other internal
        nodes are omitted). Values are signed Captum scores. Site keys
        are ``layer_*`` on ``feedforward`` and ``step_*`` on
        ``state_update``. Feedforward sites start after the input layer,
        so input nodes do not appear in ``result.sites``. State-update
        sites include all visible graph nodes, including inputs. Use
        ``result.summary()`` for one collapsed example-by-node table.
        ``summary()`` defaults to hidden nodes and
        ``aggregation="peak"``. Pass ``nodes="non_input"`` to include
        outputs, or ``nodes="all"`` to keep every visible node that
        appears in ``result.sites``. ``nodes="all"`` includes inputs only
        on ``state_update``. On feedforward, input attributions stay in
        ``result.table``. Pass ``aggregation="mean_abs"`` or
        ``aggregation="last"`` to change how state-update steps are
        combined. ``"peak"`` and ``"last"`` keep the sign;
        ``"mean_abs"`` averages magnitudes. On feedforward results, a
        non-default ``aggregation`` is ignored and emits a warning.

    Notes
    -----
    Feature and node interpretation are supported for both backends
    (``feedforward`` and ``state_update``). Node interpretation uses Captum
    layer attribution classes at ``layer_*`` or ``step_*`` sites.

    For node-level interpretation, edge2torch must access the compiled
    model's internal interpretation sites. This works for raw models
    returned by ``compile_graph()``, models returned by ``customize_model()``,
    and manually wrapped PyTorch models if the compiled model remains
    registered as a PyTorch submodule. Highly custom wrappers that hide,
    replace, or bypass the compiled model may not support ``on="nodes"``.

    ``interpret_model()`` temporarily switches the model to evaluation mode
    while computing attributions and restores the previous training/evaluation
    mode afterward.

    ``constructor_kwargs`` and ``attribute_kwargs`` are passed through to
    Captum. Refer to the Captum documentation for method-specific arguments
    such as baselines, targets, additional forward arguments, or perturbation
    settings.

    Raises
    ------
    Edge2TorchError
        If interpretation input validation fails, the requested
        on / method / backend combination is not supported, or Captum
        returns unsupported output.

    Examples
    --------
    Compute feature-level attributions. The default method is
    integrated gradients.

    >>> result = interpret_model(
    ...     model=trained_model,
    ...     artifact=artifact,
    ...     data=data,
    ...     on="features",
    ... )
    >>> result.table.head()

    Compute a summary of node-level attributions. The default method is
    layer conductance.

    >>> result = interpret_model(
    ...     model=trained_model,
    ...     artifact=artifact,
    ...     data=data,
    ...     on="nodes",
    ... )
    >>> result.summary().head()

    Inspect per-site node-level attributions, including output nodes.

    >>> result = interpret_model(
    ...     model=trained_model,
    ...     artifact=artifact,
    ...     data=data,
    ...     on="nodes",
    ...     method="LayerConductance",
    ... )
    >>> result.sites.keys()
    >>> result.summary(nodes="non_input").head()
    """
    method = _resolve_interpretation_method(on=on, method=method)

    validate_interpret_model_inputs(
        model=model,
        artifact=artifact,
        data=data,
        on=on,
        method=method,
        constructor_kwargs=constructor_kwargs,
        attribute_kwargs=attribute_kwargs,
    )

    constructor_kwargs = (
        {} if constructor_kwargs is None else dict(constructor_kwargs)
    )
    attribute_kwargs = (
        {} if attribute_kwargs is None else dict(attribute_kwargs)
    )

    prepared_input = prepare_interpretation_input(
        data=data,
        artifact=artifact,
    )

    result = run_captum_interpretation(
        model=model,
        artifact=artifact,
        inputs=prepared_input.inputs,
        sample_names=prepared_input.sample_names,
        feature_names=prepared_input.feature_names,
        on=on,
        method=method,
        constructor_kwargs=constructor_kwargs,
        attribute_kwargs=attribute_kwargs,
    )

    return result


def _resolve_interpretation_method(*, on: Any, method: Any) -> Any:
    """
    Fill in the default Captum method for a valid interpretation ``on`` value.
    """
    if method is not None:
        return method

    if on == "features":
        return DEFAULT_FEATURE_METHOD

    if on == "nodes":
        return DEFAULT_NODE_METHOD

    return method
