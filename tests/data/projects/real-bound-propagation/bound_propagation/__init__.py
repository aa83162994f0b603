from .activation import BoundActivation, BoundTanh, BoundReLU, BoundSigmoid, bisection, Exp, BoundExp, Log, BoundLog, \
    Reciprocal, BoundReciprocal, Sin, BoundSin, Cos, BoundCos, Sqrt, BoundSqrt, Cbrt, BoundCbrt
from .bounds import LinearBounds, IntervalBounds, HyperRectangle, LpNormSet
from .factory import BoundModelFactory
from .general import BoundModule
from .linear import BoundLinear, FixedLinear, ElementWiseLinear, BoundElementWiseLinear
from .sequential import BoundSequential
from .parallel import Parallel, BoundParallel, Cat
from .bivariate import Add, BoundAdd, VectorAdd, BoundVectorAdd, Sub, BoundSub, VectorSub, BoundVectorSub, Residual, \
    Mul, BoundMul, Div, VectorMul, BoundVectorMul
from .saturation import Clamp, BoundClamp
from .reshape import Select, BoundSelect, Flip, BoundFlip
from .polynomial import Pow, BoundPow, UnivariateMonomial, MultivariateMonomial
from .probability import Erf, BoundErf, StandardNormalPDF, BoundStandardNormalPDF, StandardNormalCDF, NormalPDF, NormalCDF, \
    TruncatedGaussianTwoSidedExpectation, TruncatedGaussianLowerTailExpectation, TruncatedGaussianUpperTailExpectation


__all__ = [
    'BoundActivation', 'BoundTanh', 'BoundReLU', 'BoundSigmoid', 'bisection', 'Exp', 'BoundExp', 'Log', 'BoundLog',
    'Reciprocal', 'BoundReciprocal', 'Sin', 'BoundSin', 'Cos', 'BoundCos', 'Sqrt', 'BoundSqrt', 'Cbrt', 'BoundCbrt',
    'LinearBounds', 'IntervalBounds', 'HyperRectangle', 'LpNormSet',
    'BoundModelFactory',
    'BoundModule',
    'BoundLinear', 'FixedLinear', 'ElementWiseLinear', 'BoundElementWiseLinear',
    'BoundSequential',
    'Parallel', 'BoundParallel', 'Cat',
    'Add', 'BoundAdd', 'VectorAdd', 'BoundVectorAdd', 'Sub', 'BoundSub', 'VectorSub', 'BoundVectorSub', 'Residual',
    'Mul', 'BoundMul', 'Div', 'VectorMul', 'BoundVectorMul',
    'Clamp', 'BoundClamp',
    'Select', 'BoundSelect', 'Flip', 'BoundFlip',
    'Pow', 'BoundPow', 'UnivariateMonomial', 'MultivariateMonomial',
    'Erf', 'BoundErf', 'StandardNormalPDF', 'BoundStandardNormalPDF', 'StandardNormalCDF', 'NormalPDF', 'NormalCDF',
    'TruncatedGaussianTwoSidedExpectation',
    'TruncatedGaussianLowerTailExpectation',
    'TruncatedGaussianUpperTailExpectation'
]