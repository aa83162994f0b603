from .colin import Colin27
from .icbm import ICBM2009CNonlinearSymmetric
from .pediatric import Pediatric
from .sheep import Sheep

__all__ = [
    'Sheep',
    'Colin27',
    'Pediatric',
    'ICBM2009CNonlinearSymmetric',
]
