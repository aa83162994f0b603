from xaytune.models.loader import ModelResult, load_model
from xaytune.models.peft import apply_lora, get_target_modules
from xaytune.models.registry import model_registry

register_model = model_registry.register

__all__ = [
    "ModelResult",
    "load_model",
    "apply_lora",
    "get_target_modules",
    "model_registry",
    "register_model",
]
