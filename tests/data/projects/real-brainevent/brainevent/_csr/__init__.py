# Copyright 2025 BrainX Ecosystem Limited. All Rights Reserved.
#
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
# ==============================================================================


from .binary import binary_csrmv, binary_csrmv_p, binary_csrmm, binary_csrmm_p
from .binary_indexed import (
    binary_csrmv_indexed, binary_csrmv_indexed_p,
    binary_csrmm_indexed, binary_csrmm_indexed_p,
)
from .float import csrmv, csrmv_p, csrmm, csrmm_p
from .hybrid_config import HybridConfig, get_hybrid_config
from .main import CSR, CSC
from .initialize import init_csr_config
from .plasticity_binary import (
    update_csr_on_binary_pre, update_csr_on_binary_pre_p,
    update_csr_on_binary_post, update_csr_on_binary_post_p,
    update_csc_on_binary_pre,
    update_csc_on_binary_post,
)
from .slice import csr_slice_rows, csr_slice_rows_p
from .spsolve import csr_solve
from .dt2t import csrmv_dt2t, cscmv_dt2t, csrmv_dt2t_p, csrmm_dt2t, cscmm_dt2t, csrmm_dt2t_p

__all__ = [
    'CSR', 'CSC',
    'binary_csrmv', 'binary_csrmv_p',
    'binary_csrmv_indexed', 'binary_csrmv_indexed_p',
    'binary_csrmm', 'binary_csrmm_p',
    'binary_csrmm_indexed', 'binary_csrmm_indexed_p',
    'csrmv', 'csrmv_p',
    'csrmm', 'csrmm_p',
    'csrmv_dt2t', 'cscmv_dt2t', 'csrmv_dt2t_p',
    'csrmm_dt2t', 'cscmm_dt2t', 'csrmm_dt2t_p',
    'update_csr_on_binary_pre', 'update_csr_on_binary_pre_p',
    'update_csr_on_binary_post', 'update_csr_on_binary_post_p',
    'update_csc_on_binary_pre', 'update_csc_on_binary_post',
    'csr_slice_rows', 'csr_slice_rows_p',
    'HybridConfig', 'get_hybrid_config', 'init_csr_config',
]
