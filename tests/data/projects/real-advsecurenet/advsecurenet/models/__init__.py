from advsecurenet.models.base_model import BaseModel
from advsecurenet.models.custom_model import CustomModel
from advsecurenet.models.external_model import ExternalModel
from advsecurenet.models.standard_model import StandardModel

__all__ = ["BaseModel", "StandardModel", "CustomModel", "ExternalModel"]
