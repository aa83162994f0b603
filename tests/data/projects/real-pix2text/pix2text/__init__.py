# coding: utf-8
# [Pix2Text](https://github.com/breezedeus/pix2text): an Open-Source Alternative to Mathpix.
# Copyright (C) 2022-2024, [Breezedeus](https://www.breezedeus.com).

from .utils import read_img, set_logger, merge_line_texts
from .render import render_html
from .doc_xl_layout import DocXLayoutParser
# from .layoutlmv3 import LayoutLMv3LayoutParser
# from .doc_yolo_layout_parser import DocYoloLayoutParser
from .latex_ocr import LatexOCR
from .formula_detector import MathFormulaDetector
from .text_formula_ocr import TextFormulaOCR
from .table_ocr import TableOCR
from .pix_to_text import Pix2Text
