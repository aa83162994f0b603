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


from .binary import binary_jitnmv, binary_jitnmv_p, binary_jitnmm, binary_jitnmm_p
from .csr import jitn_to_csr, jitn_csr_count_p
from .float import jitn, jitn_p, jitnmv, jitnmv_p, jitnmm, jitnmm_p
from .main import JITCNormalR, JITCNormalC
from .dt2t import jitnmv_dt2t

__all__ = [
    'JITCNormalR', 'JITCNormalC',
    'binary_jitnmv', 'binary_jitnmv_p', 'binary_jitnmm', 'binary_jitnmm_p',
    'jitn', 'jitn_p', 'jitnmv', 'jitnmv_p', 'jitnmm', 'jitnmm_p',
    'jitn_to_csr', 'jitn_csr_count_p',
    'jitnmv_dt2t',
]
