from scalesurfer.models.hub import fetch_all_models
from scalesurfer.scalesurfer import ScaleSurfer

__all__ = ["ScaleSurfer", "fetch_all_models"]
