from ._ops_registery import (
  fp8_comm_per_token_quant,
  fp8_comm_per_token_dequant,
  fp8_comm_qkv_permute_quant,
  fp8_comm_qkv_permute_dequant,
  fused_merge_attn_states,
)
