from .sphere import Sphere
from .box import Box
