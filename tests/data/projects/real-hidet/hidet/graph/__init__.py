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
from . import tensor
from . import operator
from . import nn
from . import ops
from . import flow_graph
from . import frontend

from .tensor import Tensor
from .operator import Operator
from .flow_graph import FlowGraph
from .transforms import GraphPass, PassContext, GraphPassInstrument
from .flow_graph import GraphForwardContext, GraphForwardInstrument
from .nn import Module
from .graph_utils.instruments import GraphForwardBenchmarkInstrument, GraphForwardDebugInstrument

from .tensor import asarray, randn, empty, zeros, ones, symbol, randint, randn_like, empty_like, zeros_like, ones_like
from .tensor import symbol_like, full, full_like
from .tensor import from_numpy, from_dlpack, from_torch
from .flow_graph import trace_from, load_graph, save_graph, forward_context
from .transforms import optimize, quant
