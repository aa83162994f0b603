from ._context_parallel import _get_submodule_by_name
from ._distributed_primitives import (
  _All2AllComm,
  _RingP2PComm,
  _all_to_all_o_async_fn,
  _all_to_all_qkv_async_fn,
  _init_comm_metadata,
)
from ._diffusers_bridge import (
  _normalize_parallel_config,
  validate_context_parallel_attention_backend,
)
from ._modeling_parallel import (
  _ContextParallelInput,
  _ContextParallelModelPlan,
  _ContextParallelOutput,
  _ContextParallelConfig,
)
from ._runtime import _enable_context_parallelism
from ._templated_ring import RingAttention
from ._templated_ulysses import UlyssesAttention
from ._templated_usp import USPAttention

__all__ = [
  "_ContextParallelConfig",
  "_ContextParallelInput",
  "_ContextParallelOutput",
  "_ContextParallelModelPlan",
  "_All2AllComm",
  "_RingP2PComm",
  "_get_submodule_by_name",
  "_normalize_parallel_config",
  "_enable_context_parallelism",
  "_all_to_all_o_async_fn",
  "_all_to_all_qkv_async_fn",
  "_init_comm_metadata",
  "RingAttention",
  "UlyssesAttention",
  "USPAttention",
  "validate_context_parallel_attention_backend",
]
