from .base_logger import logger
from .config_handler import YamlHandler
from .metrics import Metrics
from .util import *
