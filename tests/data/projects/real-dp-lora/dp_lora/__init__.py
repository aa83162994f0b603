from dp_lora.config import DPLoRAConfig
from dp_lora.privacy_engine import DPLoRAEngine
from dp_lora.grad_sample.grad_sample_module import GradSampleModule
from dp_lora.optimizers.dp_optimizer import DPOptimizer
from dp_lora.accounting.accountant import PrivacyAccountant, get_noise_multiplier
from dp_lora.data.poisson_loader import create_poisson_dataloader

__version__ = "0.1.0"

__all__ = [
    "DPLoRAConfig",
    "DPLoRAEngine",
    "GradSampleModule",
    "DPOptimizer",
    "PrivacyAccountant",
    "get_noise_multiplier",
    "create_poisson_dataloader",
]
