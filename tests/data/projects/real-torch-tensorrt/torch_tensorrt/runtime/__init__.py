from torch_tensorrt.dynamo.runtime import (  # noqa: F401
    TorchTensorRTModule,
)
from torch_tensorrt.runtime._cudagraphs import (
    enable_cudagraphs,
    get_cudagraphs_mode,
    get_whole_cudagraphs_mode,
    set_cudagraphs_mode,
)
from torch_tensorrt.runtime._multi_device_safe_mode import set_multi_device_safe_mode
from torch_tensorrt.runtime._optimization_profile import optimization_profile
from torch_tensorrt.runtime._output_allocator import enable_output_allocator
from torch_tensorrt.runtime._pre_allocated_outputs import enable_pre_allocated_outputs
from torch_tensorrt.runtime._runtime_cache import RuntimeCache, runtime_cache
from torch_tensorrt.runtime._runtime_config import (
    RuntimeSettings,
    runtime_config,
    set_dynamic_shapes_kernel_strategy,
)
from torch_tensorrt.runtime._weight_streaming import weight_streaming
