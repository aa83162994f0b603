from .base import AbstractBrownianPath as AbstractBrownianPath
from .path import UnsafeBrownianPath as UnsafeBrownianPath
from .tree import VirtualBrownianTree as VirtualBrownianTree
