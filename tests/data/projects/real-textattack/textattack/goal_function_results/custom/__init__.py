"""
Custom Goal Function Result package:
=============================

Custom goal function results

"""

from .logit_sum_goal_function_result import LogitSumGoalFunctionResult
from .named_entity_recognition_goal_function_result import (
    NamedEntityRecognitionGoalFunctionResult,
)
from .targeted_strict_goal_function_result import TargetedStrictGoalFunctionResult
from .targeted_bonus_goal_function_result import TargetedBonusGoalFunctionResult
