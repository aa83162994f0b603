# -*- encoding: utf-8 -*-
# @Author: SWHL
# @Contact: liekkaskono@163.com
from .main import ONNXRuntimeError, OrtInferSession

__all__ = ["ONNXRuntimeError", "OrtInferSession"]
