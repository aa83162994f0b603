from .debug_log import DebugLogger

__all__ = ["DebugLogger", "pdb"]
