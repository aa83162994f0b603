# -*- encoding: utf-8 -*-
# @Author: SWHL
# @Contact: liekkaskono@163.com
from .main import TensorRTError, TRTInferSession

__all__ = ["TensorRTError", "TRTInferSession"]
