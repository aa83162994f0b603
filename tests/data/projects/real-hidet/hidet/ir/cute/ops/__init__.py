# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

from .tensor import TensorBase, Tensor, make_tensor, TensorView, tensor_view
from .partition import (
    Partition,
    PartitionSrc,
    PartitionDst,
    PartitionA,
    PartitionB,
    partition_src,
    partition_dst,
    partition_A,
    partition_B,
)
from .rearrange import Rearrange, rearrange
from .copy import (
    Copy,
    copy,
    Mask,
    mask,
    Atomic,
    AtomicAdd,
    cute_atomic_add,
    MBarriers,
    make_mbarriers,
    MBarrierArrive,
    mbarrier_arrive,
    MBarrierTryWait,
    mbarrier_try_wait,
    MBarrierWait,
    mbarrier_wait,
)
from .reduce import (
    Reduce,
    reduce,
    ReduceMax,
    reduce_max,
    ReduceMin,
    reduce_min,
    ReduceSum,
    reduce_sum,
    ReduceMean,
    reduce_mean,
)
from .arithmetic import (
    Arithmetic,
    arithmetic,
    Cast,
    cast,
    exp,
    silu,
    rsqrt,
    elementwise_max,
    elementwise_min,
    Fill,
    fill,
    softplus,
    exp2,
)
from .algorithm import InclusiveScan, inclusive_scan
from .mma import Mma, mma, WgmmaFenceOperand, wgmma_fence_operand
from .subtensor import SubTensor, sub_tensor
from .misc import Broadcast, broadcast_to, Transpose, transpose, Pack, pack, GetItem, get
