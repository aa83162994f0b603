from .window_manager import WindowManager
from .event_handler import EventHandler

__all__ = ['WindowManager', 'EventHandler']