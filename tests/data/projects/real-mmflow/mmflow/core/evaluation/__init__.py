# Copyright (c) OpenMMLab. All rights reserved.
from .eval_hooks import DistEvalHook, EvalHook
from .evaluation import (multi_gpu_online_evaluation, online_evaluation,
                         single_gpu_online_evaluation)
from .metrics import (end_point_error, end_point_error_map, eval_metrics,
                      optical_flow_outliers)

__all__ = [
    'DistEvalHook', 'EvalHook', 'end_point_error', 'eval_metrics',
    'end_point_error_map', 'optical_flow_outliers',
    'single_gpu_online_evaluation', 'multi_gpu_online_evaluation',
    'online_evaluation'
]
