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
from .capability import capability
from .device import available, device_count, synchronize, compute_capability, properties, profiler_start, profiler_stop
from .device import cudaDeviceProp, set_device, current_device, device, is_available
from .stream import Stream, ExternalStream, stream, default_stream, current_stream
from .memory import malloc, free, malloc_async, free_async, malloc_host, free_host, memcpy_peer, memcpy_peer_async
from .memory import memcpy, memcpy_async, memset, memset_async, memory_info
from .event import Event

from . import cublas
from . import cudnn
