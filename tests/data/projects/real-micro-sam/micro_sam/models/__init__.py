from .build_sam import sam_model_registry
from .peft_sam import PEFT_Sam
