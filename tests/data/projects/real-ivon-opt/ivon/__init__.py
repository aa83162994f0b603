from . import _ivon
from ._ivon import IVON
