"""
This module contains classes and methods for making and analyzing
predictions with models that have already been trained.
"""
from .model_predict import AnalyzeSequences
from . import predict_handlers

__all__ = ["AnalyzeSequences", "predict_handlers"]
