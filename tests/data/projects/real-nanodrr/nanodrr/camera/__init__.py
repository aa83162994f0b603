from .homography import resample
from .intrinsics import make_k_inv
from .extrinsics import make_rt_inv, invert_rt_inv

__all__ = ["resample", "make_k_inv", "make_rt_inv", "invert_rt_inv"]
