"""Neural modules used by PEAR inference models."""

from pear.modules.feedforward import FeedForward

__all__ = ["FeedForward"]
