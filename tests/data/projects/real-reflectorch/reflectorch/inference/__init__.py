from reflectorch.inference.inference_model import InferenceModel, EasyInferenceModel
from reflectorch.inference.query_matcher import HuggingfaceQueryMatcher
from reflectorch.inference.multilayer_inference_model import MultilayerInferenceModel
from reflectorch.inference.preprocess_exp import (
    StandardPreprocessing,
    standard_preprocessing,
    interp_reflectivity,
    apply_attenuation_correction,
    apply_footprint_correction,
)
from reflectorch.inference.torch_fitter import ReflGradientFit
from reflectorch.inference.input_interface import Layer, Backing, Structure

__all__ = [
    "InferenceModel",
    "EasyInferenceModel",
    "MultilayerInferenceModel",
    "HuggingfaceQueryMatcher",
    "StandardPreprocessing",
    "standard_preprocessing",
    "ReflGradientFit",
    "Layer",
    "Backing",
    "Structure",
    "interp_reflectivity",
    "apply_attenuation_correction",
    "apply_footprint_correction",
]
