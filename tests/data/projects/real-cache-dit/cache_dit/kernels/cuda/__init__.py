from ._ops_registery import (
  svdq_get_load_error,
  svdq_extension_is_available,
  svdq_gemm_w4a4,
  svdq_gemm_w4a4_v2,
  svdq_gemm_w4a4_ext,
  svdq_quantize_w4a4_act_fuse_lora,
  svdq_quantize_w4a4_wgt,
  svdq_set_faster_i2f_mode,
  svdq_set_log_level,
)

__all__ = [
  "svdq_get_load_error",
  "svdq_extension_is_available",
  "svdq_gemm_w4a4",
  "svdq_gemm_w4a4_v2",
  "svdq_gemm_w4a4_ext",
  "svdq_quantize_w4a4_wgt",
  "svdq_quantize_w4a4_act_fuse_lora",
  "svdq_set_faster_i2f_mode",
  "svdq_set_log_level",
]
