from dp_lora.integrations.hf_trainer import DPLoRATrainer

__all__ = ["DPLoRATrainer"]
