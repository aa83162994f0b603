from ._convection import (
    DifficultyConvectionStepper,
    GeneralConvectionStepper,
    NormalizedConvectionStepper,
)
from ._gradient_norm import (
    DifficultyGradientNormStepper,
    GeneralGradientNormStepper,
    NormalizedGradientNormStepper,
)
from ._linear import (
    DifficultyLinearStepper,
    DifficultyLinearStepperSimple,
    DiffultyLinearStepperSimple,
    GeneralLinearStepper,
    NormalizedLinearStepper,
)
from ._nonlinear import (
    DifficultyNonlinearStepper,
    GeneralNonlinearStepper,
    NormalizedNonlinearStepper,
)
from ._polynomial import (
    DifficultyPolynomialStepper,
    GeneralPolynomialStepper,
    NormalizedPolynomialStepper,
)
from ._utils import (
    denormalize_coefficients,
    denormalize_convection_scale,
    denormalize_gradient_norm_scale,
    denormalize_polynomial_scales,
    extract_normalized_coefficients_from_difficulty,
    extract_normalized_convection_scale_from_difficulty,
    extract_normalized_gradient_norm_scale_from_difficulty,
    normalize_coefficients,
    normalize_convection_scale,
    normalize_gradient_norm_scale,
    normalize_polynomial_scales,
    reduce_normalized_coefficients_to_difficulty,
    reduce_normalized_convection_scale_to_difficulty,
    reduce_normalized_gradient_norm_scale_to_difficulty,
)
from ._vorticity_convection import GeneralVorticityConvectionStepper

__all__ = [
    "GeneralLinearStepper",
    "NormalizedLinearStepper",
    "DifficultyLinearStepper",
    "GeneralConvectionStepper",
    "NormalizedConvectionStepper",
    "DifficultyConvectionStepper",
    "GeneralGradientNormStepper",
    "NormalizedGradientNormStepper",
    "DifficultyGradientNormStepper",
    "GeneralVorticityConvectionStepper",
    "GeneralPolynomialStepper",
    "NormalizedPolynomialStepper",
    "DifficultyPolynomialStepper",
    "GeneralNonlinearStepper",
    "NormalizedNonlinearStepper",
    "DifficultyNonlinearStepper",
    "DifficultyLinearStepperSimple",
    "DiffultyLinearStepperSimple",  # Deprecated alias
    "denormalize_coefficients",
    "denormalize_convection_scale",
    "denormalize_gradient_norm_scale",
    "denormalize_polynomial_scales",
    "normalize_coefficients",
    "normalize_convection_scale",
    "normalize_gradient_norm_scale",
    "normalize_polynomial_scales",
    "reduce_normalized_coefficients_to_difficulty",
    "extract_normalized_coefficients_from_difficulty",
    "reduce_normalized_convection_scale_to_difficulty",
    "extract_normalized_convection_scale_from_difficulty",
    "reduce_normalized_gradient_norm_scale_to_difficulty",
    "extract_normalized_gradient_norm_scale_from_difficulty",
]
