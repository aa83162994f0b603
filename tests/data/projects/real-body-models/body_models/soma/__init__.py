"""Public SOMA API."""

from body_models.soma._model import SomaIdentity

__all__ = ["SomaIdentity"]
