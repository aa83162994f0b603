# -*- encoding: utf-8 -*-
# @Author: SWHL
# @Contact: liekkaskono@163.com
from .main import PaddleInferError, PaddleInferSession

__all__ = ["PaddleInferError", "PaddleInferSession"]
