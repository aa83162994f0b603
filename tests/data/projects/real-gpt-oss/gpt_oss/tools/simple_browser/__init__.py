from .simple_browser_tool import SimpleBrowserTool
from .backend import ExaBackend, YouComBackend

__all__ = [
    "SimpleBrowserTool",
    "ExaBackend",
    "YouComBackend",
]
