"""
Donut
Copyright (c) 2022-present NAVER Corp.
MIT License
"""
from .model import DonutConfig, DonutModel
from .util import DonutDataset, JSONParseEvaluator, load_json, save_json

__all__ = [
    "DonutConfig",
    "DonutModel",
    "DonutDataset",
    "JSONParseEvaluator",
    "load_json",
    "save_json",
]
