from .animal17 import animal17
from .coco17 import coco17
from .coco25 import coco25
from .coco133 import coco133
from .halpe26 import halpe26
from .hand21 import hand21
from .openpose18 import openpose18
from .openpose134 import openpose134

__all__ = [
    'coco17', 'openpose18', 'coco133', 'openpose134', 'hand21', 'halpe26',
    'coco25', 'animal17'
]
