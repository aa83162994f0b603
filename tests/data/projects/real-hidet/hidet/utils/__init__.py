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
from . import doc
from . import namer
from . import py
from . import netron
from . import transformers_utils
from . import structure
from . import stack_limit
from . import fault_handler

from .py import prod, Timer, repeat_until_converge, COLORS, get_next_file_index, factorize, HidetProfiler, TableBuilder
from .py import same_list, strict_zip, index_of, initialize, gcd, lcm, error_tolerance, green, red, cyan, bold, blue
from .py import str_indent, unique, assert_close, cdiv
from .structure import DirectedGraph
from .cache_utils import cache_dir, cache_file, clear_op_cache, clear_cache_dir
from .net_utils import download
from .files import copy_tree_ignore_existing
from .gc import gc_disabled
