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

from .distributed import (
    init_process_group,
    all_reduce,
    broadcast,
    reduce,
    all_gather,
    all_gather_into_tensor,
    gather,
    scatter,
    reduce_scatter,
    reduce_scatter_tensor,
    barrier,
    send,
    recv,
    is_initialized,
    get_default_group,
)
from .group import set_nccl_comms
from .store import FileStore, TCPStore
