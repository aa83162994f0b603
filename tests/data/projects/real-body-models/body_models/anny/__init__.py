"""Public ANNY API."""

from body_models.anny._model import AnnyIdentity
from body_models.anny._pose import convert_pose

__all__ = ["AnnyIdentity", "convert_pose"]
