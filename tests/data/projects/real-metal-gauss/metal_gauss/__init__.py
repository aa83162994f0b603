from metal_gauss.api import BACKENDS, render

__all__ = ["render", "BACKENDS"]
