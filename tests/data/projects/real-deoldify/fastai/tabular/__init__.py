from .. import basics
from ..basics import *
from .data import *
from .transform import *
from .models import *
from .. import tabular

__all__ = [*basics.__all__, *data.__all__, *transform.__all__, *models.__all__, 'tabular']

