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


from .binary import binary_jitumv, binary_jitumv_p, binary_jitumm, binary_jitumm_p
from .csr import jitu_to_csr, jitu_csr_count_p
from .float import jitu, jitu_p, jitumv, jitumv_p, jitumm, jitumm_p
from .main import JITCUniformR, JITCUniformC
from .dt2t import jitumv_dt2t

__all__ = [
    'JITCUniformR', 'JITCUniformC',
    'binary_jitumv', 'binary_jitumv_p', 'binary_jitumm', 'binary_jitumm_p',
    'jitu', 'jitu_p', 'jitumv', 'jitumv_p', 'jitumm', 'jitumm_p',
    'jitu_to_csr', 'jitu_csr_count_p',
    'jitumv_dt2t',
]
