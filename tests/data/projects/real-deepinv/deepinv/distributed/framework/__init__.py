from deepinv.distributed.framework.distributed_context import DistributedContext
from deepinv.distributed.framework.distributed_physics import (
    DistributedStackedPhysics,
    DistributedStackedLinearPhysics,
)
from deepinv.distributed.framework.distributed_processing import DistributedProcessing
from deepinv.distributed.framework.distributed_data_fidelity import (
    DistributedDataFidelity,
)
from deepinv.distributed.framework.distributed_utils import (
    DistributedReplicatedParameters,
)

__all__ = [
    "DistributedContext",
    "DistributedStackedPhysics",
    "DistributedStackedLinearPhysics",
    "DistributedProcessing",
    "DistributedDataFidelity",
    "DistributedReplicatedParameters",
]
