# -*- encoding: utf-8 -*-
# @Author: SWHL
# @Contact: liekkaskono@163.com
from .main import TextDetector
from .utils import TextDetOutput

__all__ = ["TextDetector", "TextDetOutput"]
