from .rank_model import BaseModel
from .multitask_model import MultiTaskModel