from hessian_eigenthings.operators.base import CurvatureOperator, LambdaOperator
from hessian_eigenthings.operators.distributed import DDPHessianOperator
from hessian_eigenthings.operators.fisher import EmpiricalFisherOperator, PerSampleLossFn
from hessian_eigenthings.operators.ggn import ForwardFn, GGNOperator, LossOfOutputFn
from hessian_eigenthings.operators.hessian import HessianOperator, HvpMethod, LossFn

__all__ = [
    "CurvatureOperator",
    "DDPHessianOperator",
    "EmpiricalFisherOperator",
    "ForwardFn",
    "GGNOperator",
    "HessianOperator",
    "HvpMethod",
    "LambdaOperator",
    "LossFn",
    "LossOfOutputFn",
    "PerSampleLossFn",
]
