"""
Captum-based interpretation dispatch.

Why this file exists
--------------------
This file routes validated interpretation requests to backend- and
on-specific Captum attribution implementations. Keeping dispatch here
separates public interpretation orchestration from method-specific Captum
execution and result mapping.

Role in the package
-------------------
This is an internal interpretation-dispatch module. It should choose the
appropriate implementation for a validated interpretation request, not contain
method-specific attribution logic, graph compilation, input preparation, or
plotting logic.
"""

from typing import Any

import torch
from torch import nn

from ..compile.artifact import CompileArtifact
from ..utils.errors import Edge2TorchError
from .feature_attribution import run_feature_attribution
from .result import InterpretationResult
from .site_node_attribution import run_site_node_attribution

# Level 1 functions (called by API functions) ----------------------------------


def run_captum_interpretation(
    model: nn.Module,
    artifact: CompileArtifact,
    inputs: torch.Tensor,
    sample_names: list[str],
    feature_names: list[str],
    on: str,
    method: str,
    constructor_kwargs: dict[str, Any],
    attribute_kwargs: dict[str, Any],
) -> InterpretationResult:
    """
    Run a Captum interpretation and map results back to named entities.

    Parameters
    ----------
    model
        Trained PyTorch model to interpret.
    artifact
        Compilation artifact returned by ``compile_graph()``.
    inputs
        Standardized input tensor for attribution.
    sample_names
        Names of input examples.
    feature_names
        Names of input features.
    on
        What to attribute onto. One of: ``"features"``, ``"nodes"``.
    method
        Captum attribution method compatible with ``on``.
    constructor_kwargs
        Keyword arguments passed to the selected Captum attribution class
        constructor.
    attribute_kwargs
        Keyword arguments passed to the selected Captum ``attribute()`` call.

    Notes
    -----
    The model is temporarily switched to evaluation mode during interpretation.
    Its original training/evaluation state is restored before returning.

    Returns
    -------
    InterpretationResult
        Feature or node attributions mapped back to named entities.

    Raises
    ------
    Edge2TorchError
        If interpretation fails or outputs have unexpected shape.
    """
    was_training = model.training
    model.eval()

    try:
        if on == "features":
            table = run_feature_attribution(
                model=model,
                artifact=artifact,
                inputs=inputs,
                sample_names=sample_names,
                feature_names=feature_names,
                method=method,
                constructor_kwargs=constructor_kwargs,
                attribute_kwargs=attribute_kwargs,
            )
            return InterpretationResult(on="features", table=table)

        if on == "nodes":
            sites = run_site_node_attribution(
                model=model,
                artifact=artifact,
                inputs=inputs,
                sample_names=sample_names,
                method=method,
                constructor_kwargs=constructor_kwargs,
                attribute_kwargs=attribute_kwargs,
            )
            return InterpretationResult(
                on="nodes",
                sites=sites,
                artifact=artifact,
            )

        raise Edge2TorchError(f"Unsupported on '{on}'.")

    finally:
        model.train(was_training)
