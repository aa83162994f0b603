# Copyright (C) 2022 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from . import filter, time
from .utils import staticproperty, diagonal_mask, event_rate, dotdict
from .stats import LearningStat, LearningStats
from .quantize import quantize, quantize_hook_fx
from .quantize import MODE as QUANTIZE_MODE
from .assistant import Assistant

__all__ = [
    'filter', 'time',
    'staticproperty', 'diagonal_mask',
    'dotdict', 'LearningStat',
    'LearningStats', 'quantize',
    'QUANTIZE_MODE', 'Assistant'
]
