from .src_module import SourceModule
from .utils import ceildiv
from .inline_exec import inline

__all__ = ["SourceModule", "ceildiv", "inline"]
