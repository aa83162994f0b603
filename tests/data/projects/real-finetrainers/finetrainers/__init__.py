from .args import BaseArgs
from .config import ModelType, TrainingType
from .logging import get_logger
from .models import ModelSpecification
from .trainer import ControlTrainer, SFTTrainer


__version__ = "0.2.0"
