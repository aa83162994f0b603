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
from hidet.ffi.ffi import BackendException

from . import storage
from . import compiled_module
from . import compiled_task
from . import compiled_graph

from .storage import Storage
from .compiled_module import CompiledModule, CompiledFunction, load_compiled_module
from .compiled_task import CompiledTask, load_compiled_task
from .compiled_graph import CompiledGraph, save_compiled_graph, load_compiled_graph
