from .standardization import Standardization
