from hessian_eigenthings.operators.distributed.ddp import DDPHessianOperator

__all__ = ["DDPHessianOperator"]
