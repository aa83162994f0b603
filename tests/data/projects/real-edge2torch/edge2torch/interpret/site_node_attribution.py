"""
Site-wise node-level Captum attribution methods.

Why this file exists
--------------------
This file contains Captum method implementations that attribute model outputs
to named graph nodes at interpretation sites. Site attribution is implemented
via Captum layer-level methods and then mapped back to named graph nodes.

Role in the package
-------------------
This is an internal interpretation module. It should implement site-wise and
summary node attribution across all compiled backends. It should not handle
public API validation, graph compilation, input preparation, or plotting.
"""

from collections.abc import Callable
from typing import Any, cast

import pandas as pd
import torch
from torch import nn

from ..compile.artifact import CompileArtifact
from ..nn.interpretation_sites import find_interpretation_site_provider
from ..utils.errors import Edge2TorchError
from .captum_classes import get_captum_class
from .method_registry import (
    NODE_METHODS_WITH_CONSTRUCTOR_KWARGS,
    NODE_METHODS_WITHOUT_CONSTRUCTOR_KWARGS,
)
from .result import _filter_site_attributions, _site_sort_key

# Level 2 functions (called by level 1 functions) ------------------------------


def run_site_node_attribution(
    model: nn.Module,
    artifact: CompileArtifact,
    inputs: torch.Tensor,
    sample_names: list[str],
    method: str,
    constructor_kwargs: dict[str, Any],
    attribute_kwargs: dict[str, Any],
) -> dict[str, pd.DataFrame]:
    """
    Run node-level attribution and return one table per site.

    Each table contains all visible graph nodes. Pseudo and internal
    compiler nodes are omitted. View options such as node filters and
    site aggregation belong on ``InterpretationResult``.
    """
    return _run_site_wise_attribution(
        model=model,
        artifact=artifact,
        inputs=inputs,
        sample_names=sample_names,
        method=method,
        constructor_kwargs=constructor_kwargs,
        attribute_kwargs=attribute_kwargs,
    )


# Level 3 functions (called by level 2 functions) ------------------------------


def _run_site_wise_attribution(
    model: nn.Module,
    artifact: CompileArtifact,
    inputs: torch.Tensor,
    sample_names: list[str],
    method: str,
    constructor_kwargs: dict[str, Any],
    attribute_kwargs: dict[str, Any],
) -> dict[str, pd.DataFrame]:
    """
    Run node-level attribution and return one DataFrame per site.
    """
    results: dict[str, pd.DataFrame] = {}

    site_provider = find_interpretation_site_provider(model)
    get_site = cast(
        Callable[[str], nn.Module],
        getattr(site_provider, "_edge2torch_get_interpretation_site"),
    )

    attribution_sites = _attribution_site_nodes(artifact)

    for site_id in sorted(
        attribution_sites.keys(),
        key=_site_sort_key,
    ):
        site_node_names = attribution_sites[site_id]
        site_module = get_site(site_id)

        interpreter = _build_site_interpreter(
            method=method,
            model=model,
            site_module=site_module,
            constructor_kwargs=constructor_kwargs,
        )

        interpreter = cast(Any, interpreter)
        attributions = interpreter.attribute(
            inputs,
            **attribute_kwargs,
        )

        _validate_node_attributions(
            attributions=attributions,
            site_id=site_id,
            sample_names=sample_names,
            node_names=site_node_names,
        )

        visible_node_names, visible_attributions = _filter_site_attributions(
            attributions=attributions,
            node_names=site_node_names,
            artifact=artifact,
            nodes="all",
        )

        if not visible_node_names:
            continue

        results[site_id] = pd.DataFrame(
            visible_attributions.detach().cpu().numpy(),
            index=sample_names,
            columns=visible_node_names,
        )

    if not results:
        raise Edge2TorchError("Node interpretation produced no visible nodes.")

    return results


def _attribution_site_nodes(
    artifact: CompileArtifact,
) -> dict[str, list[str]]:
    """
    Return the full per-site node lists used to align Captum columns.
    """
    full_sites = artifact._interpretation_sites

    if not isinstance(full_sites, dict) or not full_sites:
        raise Edge2TorchError(
            "Compiled artifact is missing internal interpretation-site "
            "node names required for node attribution."
        )

    return full_sites


def _build_site_interpreter(
    method: str,
    model: nn.Module,
    site_module: nn.Module,
    constructor_kwargs: dict[str, Any],
):
    """
    Build a Captum interpreter for site-level attribution.
    """
    if method in NODE_METHODS_WITH_CONSTRUCTOR_KWARGS:
        interpreter_class = get_captum_class(method)
        return interpreter_class(
            model,
            site_module,
            **constructor_kwargs,
        )

    if method in NODE_METHODS_WITHOUT_CONSTRUCTOR_KWARGS:
        interpreter_class = get_captum_class(method)
        return interpreter_class(
            model,
            site_module,
        )

    raise Edge2TorchError(f"Method '{method}' is not supported for on='nodes'.")


def _validate_node_attributions(
    attributions: torch.Tensor,
    site_id: str,
    sample_names: list[str],
    node_names: list[str],
) -> None:
    """
    Validate node-attribution output shape for one site.
    """
    if attributions.ndim != 2:
        raise Edge2TorchError(
            f"Node attributions for '{site_id}' must have "
            "shape (n_examples, n_nodes)."
        )

    n_examples, n_nodes = attributions.shape

    if n_examples != len(sample_names):
        raise Edge2TorchError(
            f"Node attribution row count for '{site_id}' "
            "does not match sample count."
        )

    if n_nodes != len(node_names):
        raise Edge2TorchError(
            f"Node attribution width mismatch for '{site_id}'. "
            f"Expected {len(node_names)}, got {n_nodes}."
        )
