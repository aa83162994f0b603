from . import scoring_utils

__all__ = ["scoring_utils"]
