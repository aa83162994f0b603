# -*- coding: utf-8 -*-
from .stage_I import IFStageI
from .stage_II import IFStageII
from .stage_III import IFStageIII
from .stage_III_sd_x4 import StableStageIII
from .t5 import T5Embedder
from .base import IFBaseModule

__all__ = ['IFBaseModule', 'IFStageI', 'IFStageII', 'IFStageIII', 'StableStageIII', 'T5Embedder']
