"""Text encoding inside training: encode-ahead, build, timing and memory reporting."""

from kohakumoss.training.textenc.ahead import TextAhead

__all__ = ["TextAhead"]
