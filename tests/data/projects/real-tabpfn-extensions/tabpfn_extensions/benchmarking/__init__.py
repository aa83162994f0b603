from .experiment import Experiment

__all__ = ["Experiment"]
