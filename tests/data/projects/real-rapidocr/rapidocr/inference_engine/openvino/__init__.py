# -*- encoding: utf-8 -*-
# @Author: SWHL
# @Contact: liekkaskono@163.com
from .main import OpenVINOError, OpenVINOInferSession

__all__ = ["OpenVINOError", "OpenVINOInferSession"]
