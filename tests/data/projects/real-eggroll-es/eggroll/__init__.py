"""
EGGROLL — Evolution Guided General Optimization via Low-Rank Learning (PyTorch)

Gradient-free fine-tuning for any HuggingFace model. One command. No backprop.

Usage:
    from eggroll import EggrollTrainer, EggrollConfig
    trainer = EggrollTrainer(model, config, reward_fn)
    trainer.evolve(dataset)
"""

from eggroll.core import EggrollConfig, LowRankNoiser, evolve_step
from eggroll.trainer import EggrollTrainer
from eggroll.rewards import TextReward, PerplexityReward, CustomReward, MultiReward

__version__ = "0.2.0"
__all__ = [
    "EggrollConfig",
    "EggrollTrainer",
    "LowRankNoiser",
    "evolve_step",
    "TextReward",
    "PerplexityReward",
    "CustomReward",
    "MultiReward",
]
