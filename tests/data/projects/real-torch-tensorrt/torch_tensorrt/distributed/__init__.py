from torch_tensorrt.distributed._distributed import (  # noqa: F401
    distributed_context,
    set_distributed_mode,
)
from torch_tensorrt.distributed._nccl_utils import (  # noqa: F401
    setup_nccl_for_torch_tensorrt,
)
