# -*- encoding: utf-8 -*-
# @Author: SWHL
# @Contact: liekkaskono@163.com
from .main import TextRecognizer
from .typings import TextRecInput, TextRecOutput

__all__ = ["TextRecognizer", "TextRecInput", "TextRecOutput"]
