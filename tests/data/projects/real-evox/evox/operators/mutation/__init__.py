__all__ = ["polynomial_mutation"]

from .pm_mutation import polynomial_mutation
