from .picogpt import PicoGPT

__all__ = ["PicoGPT"]
