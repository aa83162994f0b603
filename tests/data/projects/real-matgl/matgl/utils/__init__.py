"""Various utility methods and classes."""

from __future__ import annotations

from matgl.utils.uncertainty import MCDropoutWrapper

__all__ = ["MCDropoutWrapper"]
