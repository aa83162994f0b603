"""
Validation logic for the interpret_model() public API.

Why this file exists
--------------------
This file separates strict public input validation from both the
interpret_model() API wrapper and the internal interpretation execution
logic. Keeping validation here makes the supported interpretation
contract easier to reason about and avoids duplicating checks across
input preparation and Captum-specific modules.

Role in the package
-------------------
This is an internal validation module for model interpretation. It
defines which on / method / backend / data combinations are accepted
by interpret_model() and raises clear errors for unsupported or
ambiguous usage. It should not contain Captum execution logic, input
standardization, or public API orchestration.
"""

import pandas as pd
import torch
from torch import nn

try:
    import anndata as ad
except ImportError:
    ad = None

from ..utils.constants import COMPILE_BACKENDS
from ..utils.errors import Edge2TorchError
from ..utils.feature_labels import (
    dataframe_with_str_feature_columns,
    unique_str_labels,
)
from .method_registry import (
    FEATURE_METHODS,
    FEATURE_METHODS_WITHOUT_CONSTRUCTOR_KWARGS,
    NODE_METHODS,
    NODE_METHODS_WITHOUT_CONSTRUCTOR_KWARGS,
    SUPPORTED_METHODS,
)

_DF_DUPLICATE_COLUMNS_MSG = (
    "'data' DataFrame must not contain duplicate column names "
    "(including after converting labels to strings)."
)
_ANNDATA_DUPLICATE_VARS_MSG = (
    "'data.var_names' must not contain duplicates "
    "(including after converting labels to strings)."
)

# Level 1 functions (called by API functions) ----------------------------------


def validate_interpret_model_inputs(
    model,
    artifact,
    data,
    on,
    method,
    constructor_kwargs,
    attribute_kwargs,
) -> None:
    """
    Validate the public inputs of ``interpret_model()``.

    Parameters
    ----------
    model
        Trained PyTorch model returned by ``compile_graph()``.
    artifact
        Compilation artifact returned by ``compile_graph()``.
    data
        Input data used for attribution.
    on
        What to attribute onto (``"features"`` or ``"nodes"``).
    method
        Captum attribution method.
    constructor_kwargs
        Optional keyword arguments passed to the Captum attribution class
        constructor.
    attribute_kwargs
        Optional keyword arguments passed to the Captum ``attribute()`` call.

    Raises
    ------
    Edge2TorchError
        If any input is invalid.
    """
    _validate_interpret_options(
        on=on,
        method=method,
        constructor_kwargs=constructor_kwargs,
        attribute_kwargs=attribute_kwargs,
    )

    _validate_interpret_model(model=model)

    _validate_interpret_artifact(
        artifact=artifact,
        on=on,
    )

    _validate_interpret_data(
        data=data,
        feature_names=list(artifact.feature_names),
    )


# Level 2 functions (called by level 1 functions) ------------------------------


def _validate_interpret_options(
    on,
    method,
    constructor_kwargs,
    attribute_kwargs,
) -> None:
    """
    Validate interpretation ``on``, method, and Captum kwargs.
    """
    if not isinstance(on, str):
        raise Edge2TorchError("'on' must be a string.")

    supported_on_values = {"nodes", "features"}
    if on not in supported_on_values:
        supported = ", ".join(sorted(supported_on_values))
        raise Edge2TorchError(
            f"Unsupported on '{on}'. Expected one of: {supported}."
        )

    if not isinstance(method, str):
        raise Edge2TorchError("'method' must be a string.")

    if method not in SUPPORTED_METHODS:
        supported = ", ".join(sorted(SUPPORTED_METHODS))
        raise Edge2TorchError(
            f"Unsupported method '{method}'. Expected one of: {supported}."
        )

    if on == "features" and method not in FEATURE_METHODS:
        raise Edge2TorchError(
            f"Method '{method}' is not compatible with on='features'."
        )

    if on == "nodes" and method not in NODE_METHODS:
        raise Edge2TorchError(
            f"Method '{method}' is not compatible with on='nodes'."
        )

    if constructor_kwargs is not None and not isinstance(
        constructor_kwargs,
        dict,
    ):
        raise Edge2TorchError(
            "'constructor_kwargs' must be a dictionary or None."
        )

    if (
        on == "features"
        and method in FEATURE_METHODS_WITHOUT_CONSTRUCTOR_KWARGS
        and constructor_kwargs
    ):
        raise Edge2TorchError(
            f"Method '{method}' does not support constructor_kwargs. "
            "Pass method-specific attribution options via attribute_kwargs."
        )

    if (
        on == "nodes"
        and method in NODE_METHODS_WITHOUT_CONSTRUCTOR_KWARGS
        and constructor_kwargs
    ):
        raise Edge2TorchError(
            f"Method '{method}' does not support constructor_kwargs. "
            "Pass method-specific attribution options via attribute_kwargs."
        )

    if attribute_kwargs is not None and not isinstance(attribute_kwargs, dict):
        raise Edge2TorchError(
            "'attribute_kwargs' must be a dictionary or None."
        )

    if (
        isinstance(attribute_kwargs, dict)
        and attribute_kwargs.get("return_convergence_delta") is True
    ):
        raise Edge2TorchError(
            "'return_convergence_delta=True' is not currently supported "
            "because edge2torch expects Captum attribution methods to return "
            "attribution tensors."
        )


def _validate_interpret_model(model) -> None:
    """
    Validate the model object.
    """
    if not isinstance(model, nn.Module):
        raise Edge2TorchError("'model' must be a torch.nn.Module.")

    if not hasattr(model, "forward"):
        raise Edge2TorchError(
            "'model' must be a PyTorch model with a forward method."
        )


def _validate_interpret_artifact(
    artifact,
    on,
) -> None:
    """
    Validate the compilation artifact and backend compatibility.
    """
    supported_backends = set(COMPILE_BACKENDS)

    required_artifact_attrs = {
        "backend",
        "feature_names",
        "interpretation_sites",
        "input_nodes",
        "output_nodes",
        "hidden_nodes",
    }
    missing_attrs = [
        attr for attr in required_artifact_attrs if not hasattr(artifact, attr)
    ]

    if missing_attrs:
        missing_str = ", ".join(sorted(missing_attrs))
        raise Edge2TorchError(
            f"'artifact' is missing required attribute(s): {missing_str}."
        )

    if artifact.backend not in supported_backends:
        supported = ", ".join(sorted(supported_backends))
        raise Edge2TorchError(
            f"Unsupported artifact backend '{artifact.backend}'. "
            f"Expected one of: {supported}."
        )

    if on == "nodes" and not isinstance(artifact.interpretation_sites, dict):
        raise Edge2TorchError(
            "'artifact.interpretation_sites' must be a dictionary."
        )

    if on == "nodes" and not artifact.interpretation_sites:
        raise Edge2TorchError(
            "'artifact.interpretation_sites' must not be empty for "
            "node interpretation."
        )

    if on == "nodes" and not isinstance(artifact.input_nodes, list):
        raise Edge2TorchError("'artifact.input_nodes' must be a list.")

    if on == "nodes" and not isinstance(artifact.output_nodes, list):
        raise Edge2TorchError("'artifact.output_nodes' must be a list.")

    if on == "nodes" and not isinstance(artifact.hidden_nodes, list):
        raise Edge2TorchError("'artifact.hidden_nodes' must be a list.")

    if not isinstance(artifact.feature_names, list):
        raise Edge2TorchError("'artifact.feature_names' must be a list.")

    if not artifact.feature_names:
        raise Edge2TorchError(
            "'artifact.feature_names' must contain at least one feature name."
        )

    if not all(isinstance(name, str) for name in artifact.feature_names):
        raise Edge2TorchError(
            "'artifact.feature_names' must contain only strings."
        )

    if len(set(artifact.feature_names)) != len(artifact.feature_names):
        raise Edge2TorchError(
            "'artifact.feature_names' must not contain duplicate names."
        )


def _validate_interpret_data(
    data,
    feature_names: list[str],
) -> None:
    """
    Validate interpretation input data against expected feature names.
    """
    is_supported_data = isinstance(data, (pd.DataFrame, torch.Tensor))

    if ad is not None:
        is_supported_data = is_supported_data or isinstance(data, ad.AnnData)

    if not is_supported_data:
        if ad is None:
            raise Edge2TorchError(
                "'data' must be a pandas DataFrame or torch.Tensor. "
                "AnnData support requires the optional 'anndata' dependency."
            )

        raise Edge2TorchError(
            "'data' must be a pandas DataFrame, anndata.AnnData, "
            "or torch.Tensor."
        )

    required_features = set(feature_names)
    expected_n_features = len(feature_names)

    if isinstance(data, pd.DataFrame):
        _validate_interpret_dataframe(
            data=data,
            feature_names=feature_names,
            required_features=required_features,
        )
        return

    if ad is not None and isinstance(data, ad.AnnData):
        _validate_interpret_anndata(
            data=data,
            required_features=required_features,
        )
        return

    if isinstance(data, torch.Tensor):
        _validate_interpret_tensor(
            data=data,
            expected_n_features=expected_n_features,
        )
        return

    raise Edge2TorchError("Unsupported interpretation input type.")


# Level 3 functions (called by level 2 functions) ------------------------------


def _validate_interpret_dataframe(
    data: pd.DataFrame,
    feature_names: list[str],
    required_features: set[str],
) -> None:
    """
    Validate DataFrame interpretation input.
    """
    named = dataframe_with_str_feature_columns(
        data,
        duplicate_message=_DF_DUPLICATE_COLUMNS_MSG,
    )

    data_features = set(named.columns)

    missing_columns = required_features.difference(data_features)
    if missing_columns:
        missing_str = ", ".join(sorted(missing_columns))
        raise Edge2TorchError(
            f"'data' is missing required feature column(s): {missing_str}."
        )

    non_numeric_columns = [
        name
        for name in feature_names
        if not pd.api.types.is_numeric_dtype(named[name])
    ]

    if non_numeric_columns:
        non_numeric_str = ", ".join(sorted(non_numeric_columns))
        raise Edge2TorchError(
            f"'data' contains non-numeric feature column(s): {non_numeric_str}."
        )

    _require_at_least_one_sample(n_samples=len(named))


def _validate_interpret_anndata(
    data,
    required_features: set[str],
) -> None:
    """
    Validate AnnData interpretation input.
    """
    var_names = unique_str_labels(
        data.var_names,
        duplicate_message=_ANNDATA_DUPLICATE_VARS_MSG,
    )

    data_features = set(var_names)

    missing_vars = required_features.difference(data_features)
    if missing_vars:
        missing_str = ", ".join(sorted(missing_vars))
        raise Edge2TorchError(
            f"'data' is missing required variable name(s): {missing_str}."
        )

    _require_at_least_one_sample(n_samples=int(data.n_obs))


def _validate_interpret_tensor(
    data: torch.Tensor,
    expected_n_features: int,
) -> None:
    """
    Validate tensor interpretation input.
    """
    if data.ndim != 2:
        raise Edge2TorchError("'data' tensor must be 2-dimensional.")

    if data.shape[1] != expected_n_features:
        raise Edge2TorchError(
            "'data' tensor has the wrong number of features. "
            f"Expected {expected_n_features}, got {data.shape[1]}."
        )

    _require_at_least_one_sample(n_samples=int(data.shape[0]))


def _require_at_least_one_sample(*, n_samples: int) -> None:
    """
    Reject empty interpretation inputs before Captum runs.
    """
    if n_samples < 1:
        raise Edge2TorchError("'data' must contain at least one sample (row).")
