"""Stage F — session / undo persistence."""

from .undo_session_manager import (
    SessionManager, EditSession, EditStep, rle_encode, rle_decode,
)
from .empty_session_sweeper import EmptySessionSweeper

__all__ = [
    "SessionManager", "EditSession", "EditStep",
    "rle_encode", "rle_decode", "EmptySessionSweeper",
]
