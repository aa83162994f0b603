from .activation import Activation
from .concatenate import Concatenate
from .grad_norm import GradNorm
from .lambda_module import Lambda
from .select import Select

__all__ = [
    'Lambda',
    'Concatenate',
    'Select',
    'GradNorm',
    'Activation',
]

classes = __all__
