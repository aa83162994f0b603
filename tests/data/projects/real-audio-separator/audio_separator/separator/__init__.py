from .separator import Separator
from .exceptions import AudioExportError, BatchSeparationError, InvalidAudioDataError

__all__ = ["AudioExportError", "BatchSeparationError", "InvalidAudioDataError", "Separator"]
