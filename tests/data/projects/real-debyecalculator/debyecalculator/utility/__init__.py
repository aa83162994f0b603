from .profiling import Profiler
