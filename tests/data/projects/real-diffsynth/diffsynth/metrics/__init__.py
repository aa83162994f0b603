from ..core import ModelConfig
from .aesthetic import AestheticMetric
from .base import Metric
from .bioclip import BioCLIPMetric
from .clip import CLIPMetric
from .fid import FIDMetric
from .hpsv2 import HPSv2Metric
from .hpsv3 import HPSv3Metric
from .image_reward import ImageRewardMetric
from .lpips import LPIPSMetric
from .pickscore import PickScoreMetric
from .qwen_image_bench import QwenImageBenchMetric
from .unified_reward_2 import UnifiedReward2Metric
from .unified_reward_edit import UnifiedRewardEditMetric


__all__ = [
    "Metric",
    "ModelConfig",
    "PickScoreMetric",
    "ImageRewardMetric",
    "HPSv2Metric",
    "HPSv3Metric",
    "CLIPMetric",
    "BioCLIPMetric",
    "AestheticMetric",
    "FIDMetric",
    "LPIPSMetric",
    "QwenImageBenchMetric",
    "UnifiedReward2Metric",
    "UnifiedRewardEditMetric",
]
