from apax.layers import activation, descriptor, ntk_linear, scaling

__all__ = ["descriptor", "activation", "ntk_linear", "scaling"]
