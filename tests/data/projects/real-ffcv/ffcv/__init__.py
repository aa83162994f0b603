from .loader import Loader
from .writer import DatasetWriter
__version__ = '0.0.3rc1'

__all__ = ['Loader']
