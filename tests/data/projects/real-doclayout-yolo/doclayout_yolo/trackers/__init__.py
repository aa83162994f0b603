# Ultralytics YOLO 🚀, AGPL-3.0 license

from .bot_sort import BOTSORT
from .byte_tracker import BYTETracker
from .track import register_tracker

__all__ = "register_tracker", "BOTSORT", "BYTETracker"  # allow simpler import
