"""
IRT models.
"""
from .base_irt_model import BaseIRTModel
from .monotone_nn import MonotoneNN
from .model_mix import ModelMix
from .one_parameter_logistic import OneParameterLogistic
from .two_parameter_logistic import TwoParameterLogistic
from .three_parameter_logistic import ThreeParameterLogistic
from .generalized_partial_credit import GeneralizedPartialCredit
from .graded_response import GradedResponse
from .nested_logit import NestedLogit
from .nominal_response import NominalResponse
from .monotone_polynomial import MonotonePolynomial
from .surprisal_spline import SurprisalSpline
from .monotone_b_spline import MonotoneBSpline
