import fp4_fp8_for_torch_mps.ops  # noqa: F401
from fp4_fp8_for_torch_mps.fp8_mps_native import get_decode_backend, set_decode_backend

__all__ = ["get_decode_backend", "set_decode_backend"]
