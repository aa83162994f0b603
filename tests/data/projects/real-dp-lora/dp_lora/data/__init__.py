from dp_lora.data.poisson_loader import create_poisson_dataloader
from dp_lora.data.virtual_batch import VirtualBatchManager

__all__ = ["create_poisson_dataloader", "VirtualBatchManager"]
