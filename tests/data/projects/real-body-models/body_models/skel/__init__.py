"""Public SKEL API."""

from body_models.skel._model import SkelIdentity

__all__ = ["SkelIdentity"]
