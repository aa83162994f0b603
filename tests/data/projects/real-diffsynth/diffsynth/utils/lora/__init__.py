from .general import GeneralLoRALoader
from .merge import merge_lora
from .reset_rank import reset_lora_rank