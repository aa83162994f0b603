"""Utils module."""

__all__ = [
    "autocorrelation",
    "autocorrelation_stack",
    "cwd",
    "get_careamics_home",
    "get_device",
    "get_logger",
    "get_ram_size",
    "get_run_version",
]


from .autocorrelation import autocorrelation, autocorrelation_stack
from .context import cwd, get_careamics_home
from .folder_versioning import get_run_version
from .get_device import get_device
from .logging import get_logger
from .ram import get_ram_size
