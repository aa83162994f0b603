# -*- encoding: utf-8 -*-
# @Author: SWHL
# @Contact: liekkaskono@163.com
from .main import TextClassifier
from .utils import TextClsOutput

__all__ = ["TextClassifier", "TextClsOutput"]
