from .auto_low import *

__all__ = ["lower", "sequential_lower"]
