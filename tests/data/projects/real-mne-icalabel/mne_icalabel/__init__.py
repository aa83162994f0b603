from . import annotation, config, datasets, features, gui, iclabel, utils
from ._version import __version__
from .label_components import label_components
from .utils.config import sys_info
