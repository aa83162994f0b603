from .collect_env import *

__all__ = [*collect_env.__all__]
