from .control_trainer import ControlTrainer
from .sft_trainer import SFTTrainer
