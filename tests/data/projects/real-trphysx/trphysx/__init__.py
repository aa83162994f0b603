__version__ = "0.0.8"

__all__ = ['config', 'data_utils', 'embedding', 'transformer', 'utils', 'viz']

from . import config
from . import data_utils
from . import embedding
from . import transformer
from . import utils
from . import viz
