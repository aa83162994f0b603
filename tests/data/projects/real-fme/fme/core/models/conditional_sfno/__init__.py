from . import benchmark
