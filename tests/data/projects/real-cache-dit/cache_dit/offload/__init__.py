from .layerwise import LayerwiseOffloadHandle
from .layerwise import LayerwiseOffloadHandleGroup
from .layerwise import _parse_byte_size_arg
from .layerwise import _apply_layerwise_offload
from .layerwise import _find_offload_related_hf_hook
from .layerwise import get_layerwise_offload_handles
from .layerwise import layerwise_offload
from .layerwise import layerwise_cpu_offload
from .layerwise import remove_layerwise_offload

__all__ = [
  "LayerwiseOffloadHandle",
  "LayerwiseOffloadHandleGroup",
  "_parse_byte_size_arg",
  "_apply_layerwise_offload",
  "_find_offload_related_hf_hook",
  "get_layerwise_offload_handles",
  "layerwise_offload",
  "layerwise_cpu_offload",
  "remove_layerwise_offload",
]
