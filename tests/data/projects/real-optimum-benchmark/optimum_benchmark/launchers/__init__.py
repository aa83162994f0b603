from .config import LauncherConfig  # noqa: F401
from .inline.config import InlineConfig  # noqa: F401
from .process.config import ProcessConfig  # noqa: F401
from .torchrun.config import TorchrunConfig  # noqa: F401

__all__ = [
    "InlineConfig",
    "ProcessConfig",
    "TorchrunConfig",
    "LauncherConfig",
]
