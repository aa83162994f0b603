from ._convolution import DiscreteContinuousConvS2

__all__ = ["DiscreteContinuousConvS2"]
