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

from .binary import (
    binary_fcnmv,
    binary_fcnmv_p,
    binary_fcnmm,
    binary_fcnmm_p,
)
from .float import fcnmv, fcnmm
from .dt2t import fcnmv_dt2t, fcnmm_dt2t
from .main import FixedNumConn, FixedNumPerPost, FixedNumPerPre
from .plasticity_binary import (
    update_fixed_post_conn_on_binary_pre,
    update_fixed_pre_conn_on_binary_post,
    fcn_plasticity_row_p,
)

__all__ = [
    'FixedNumConn', 'FixedNumPerPost', 'FixedNumPerPre',
    'binary_fcnmv', 'binary_fcnmv_p',
    'binary_fcnmm', 'binary_fcnmm_p',
    'fcnmv', 'fcnmm', 'fcnmv_dt2t', 'fcnmm_dt2t',
    'update_fixed_post_conn_on_binary_pre',
    'update_fixed_pre_conn_on_binary_post',
    'fcn_plasticity_row_p',
]
