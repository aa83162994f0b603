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


from .binary import binary_jitsmv, binary_jitsmv_p, binary_jitsmm, binary_jitsmm_p
from .csr import jits_to_csr, jits_csr_count_p
from .float import jits, jits_p, jitsmv, jitsmv_p, jitsmm, jitsmm_p
from .main import JITCScalarMatrix, JITCScalarC, JITCScalarR
from .dt2t import jitsmv_dt2t

__all__ = [
    'JITCScalarMatrix', 'JITCScalarR', 'JITCScalarC',
    'binary_jitsmv', 'binary_jitsmv_p', 'binary_jitsmm', 'binary_jitsmm_p',
    'jits', 'jits_p', 'jitsmv', 'jitsmv_p', 'jitsmm', 'jitsmm_p',
    'jits_to_csr', 'jits_csr_count_p',
    'jitsmv_dt2t',
]
