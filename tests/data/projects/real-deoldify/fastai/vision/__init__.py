from .. import basics
from ..basics import *
from .learner import *
from .image import *
from .data import *
from .transform import *
from .tta import *
from . import models

from .. import vision

__all__ = [*basics.__all__, *learner.__all__, *data.__all__, *image.__all__, *transform.__all__, *tta.__all__, 'models', 'vision']

