from .base_logger import *
from .tensorboard_logger import *
from .wandb_logger import *
from .text_logging import *
from .interactive_logging import *
from .csv_logger import *
