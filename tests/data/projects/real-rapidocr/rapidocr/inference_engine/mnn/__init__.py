# -*- encoding: utf-8 -*-
# @Author: SWHL
# @Contact: liekkaskono@163.com
from .main import MNNError, MNNInferSession

__all__ = ["MNNError", "MNNInferSession"]
