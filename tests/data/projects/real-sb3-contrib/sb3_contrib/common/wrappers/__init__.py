from sb3_contrib.common.wrappers.action_masker import ActionMasker
from sb3_contrib.common.wrappers.time_feature import TimeFeatureWrapper

__all__ = ["ActionMasker", "TimeFeatureWrapper"]
