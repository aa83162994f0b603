from .base import Base
from .coco import Coco
from .classification import Classification
