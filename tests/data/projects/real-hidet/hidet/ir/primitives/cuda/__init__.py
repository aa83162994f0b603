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
from . import math
from . import mma

from .cluster import this_cluster
from .smem import set_kernel_max_dynamic_smem_bytes
from .sync import syncthreads, syncwarp, bar_sync
from .ldst import lds128, sts128
from .ldst import ldg256, ldg128, ldg64, ldg32, ldg256_lu, ldg128_lu, ldg64_lu, ldg32_lu, ldg16
from .ldst import stg512, stg256, stg128, stg64, stg32, stg16
from .ldst import lds64, lds32, lds16, lds8
from .ldst import sts64, sts32, sts16, sts8
from .shfl import shfl_sync, shfl_up_sync, shfl_down_sync, shfl_xor_sync, active_mask
from .vars import threadIdx, blockIdx, blockDim, gridDim
from .wmma import wmma_load_a, wmma_load_b, wmma_mma, wmma_store
from .cvt import cvt, cvtv
from .memcpy import memcpy_async
from .errchk import check_cuda_error
from .cp_async import cp_async, cp_async_commit_group, cp_async_wait_group, cp_async_wait_all
from .barrier import mbarrier_arrive, mbarrier_arrive_and_expect_tx, mbarrier_expect_transaction
from .barrier import mbarrier_complete_transaction, mbarrier_init, mbarrier_invalidate, mbarrier_test_wait
from .barrier import mbarrier_try_wait, mbarrier_wait, cp_async_barrier_arrive
from .barrier import barrier_sync, barrier_arrive
from .tensor_map import create_tensor_map
from .half import sub_f16x2, fma_f16x2
from .lop3 import lop3
from .prmt import prmt

from .tmem import tcgen05_alloc, tcgen05_dealloc, tcgen05_relinquish_alloc_permit
from .tmem import compute_tmem_address, compute_tmem_offset_address, get_register_count
from .tcgen05_ldst import tcgen05_ld, tcgen05_st, tcgen05_wait
from .tcgen05_cp import tcgen05_cp, tcgen05_shift
from .tcgen05_cp import make_tcgen05_cp_desc, matrix_descriptor_encode
