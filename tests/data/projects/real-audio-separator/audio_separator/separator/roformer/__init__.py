"""
Roformer implementation module.
Updated implementation supporting both old and new Roformer model parameters.
"""

from .model_configuration import ModelConfiguration
from .bs_roformer_config import BSRoformerConfig
from .mel_band_roformer_config import MelBandRoformerConfig
from .model_loading_result import ModelLoadingResult
from .parameter_validation_error import ParameterValidationError

__all__ = [
    'ModelConfiguration',
    'BSRoformerConfig', 
    'MelBandRoformerConfig',
    'ModelLoadingResult',
    'ParameterValidationError'
]
