__all__ = ["hessian", "jacobian"]

from .gradients import clear, hessian, jacobian
