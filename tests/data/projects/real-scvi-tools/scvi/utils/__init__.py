from ._attrdict import attrdict
from ._decorators import unsupported_if_adata_minified
from ._dependencies import dependencies, error_on_missing_dependencies, is_package_installed
from ._docstrings import de_dsp, setup_anndata_dsp
from ._jax import device_selecting_PRNGKey
from ._mlflow import mlflow_log_artifact, mlflow_log_table, mlflow_log_text, mlflow_logger
from ._track import track

__all__ = [
    "track",
    "setup_anndata_dsp",
    "de_dsp",
    "attrdict",
    "device_selecting_PRNGKey",
    "unsupported_if_adata_minified",
    "mlflow_logger",
    "mlflow_log_artifact",
    "mlflow_log_text",
    "mlflow_log_table",
    "error_on_missing_dependencies",
    "is_package_installed",
    "dependencies",
]
