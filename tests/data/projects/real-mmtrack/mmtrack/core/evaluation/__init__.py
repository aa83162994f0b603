# Copyright (c) OpenMMLab. All rights reserved.
from .eval_hooks import DistEvalHook, EvalHook
from .eval_mot import eval_mot
from .eval_sot_ope import eval_sot_ope
from .eval_sot_vot import (bbox2region, eval_sot_accuracy_robustness,
                           eval_sot_eao)
from .eval_vis import eval_vis

__all__ = [
    'EvalHook', 'DistEvalHook', 'eval_mot', 'eval_sot_ope', 'bbox2region',
    'eval_sot_eao', 'eval_sot_accuracy_robustness', 'eval_vis'
]
