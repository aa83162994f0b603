from dp_lora.optimizers.dp_optimizer import DPOptimizer

__all__ = ["DPOptimizer"]
