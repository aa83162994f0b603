from . import apollocar3d
from . import cifar10
from . import coco
from . import wholebody
