from .nn_distance import build_kd_tree, gpu_available

__all__ = [build_kd_tree, gpu_available]
__version__ = "1.0"