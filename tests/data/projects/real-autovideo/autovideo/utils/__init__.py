from .d3m_utils import *
from .axolotl_utils import *
from .training_utils import *
from .logging_utils import logger, set_log_path
