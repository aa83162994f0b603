from .model_dynamics import TorchMDDynamics

__all__ = ["TorchMDDynamics"]
