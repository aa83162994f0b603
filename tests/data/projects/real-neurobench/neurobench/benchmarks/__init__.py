from .benchmark import Benchmark

__all__ = ["Benchmark"]
