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
from . import call_graph
from . import hash_sum
from . import index_transform
from . import expr_utils

from .index_transform import index_serialize, index_deserialize
from .expr_utils import as_expr
from .broadcast_utils import can_broadcast, can_mutually_broadcast, broadcast_shape, broadcast_shapes, broadcast_indices
