"""Attention backend package: imports backend modules to register them on package import."""
from . import native  # noqa: F401
from . import flash  # noqa: F401
from . import cudnn  # noqa: F401
from . import sage  # noqa: F401
from . import sage3  # noqa: F401
from . import ffpa  # noqa: F401
from . import npu  # noqa: F401

__all__ = ["native", "flash", "cudnn", "sage", "sage3", "ffpa", "npu"]
