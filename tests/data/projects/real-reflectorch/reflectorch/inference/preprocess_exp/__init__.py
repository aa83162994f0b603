from reflectorch.inference.preprocess_exp.preprocess import (
    standard_preprocessing,
    StandardPreprocessing,
)
from reflectorch.inference.preprocess_exp.interpolation import interp_reflectivity
from reflectorch.inference.preprocess_exp.attenuation import apply_attenuation_correction
from reflectorch.inference.preprocess_exp.footprint import apply_footprint_correction