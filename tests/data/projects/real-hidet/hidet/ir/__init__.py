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
from . import type  # pylint: disable=redefined-builtin
from . import expr
from . import stmt
from . import func
from . import functors
from . import builders
from . import layout
from . import mapping
from . import task
from . import polinomial

from .node import Node
from .module import IRModule
from .func import Function
from .type import BaseType, TensorType, DataType, FuncType, VoidType, PointerType, TensorPointerType
from .type import data_type, tensor_type, tensor_pointer_type

from .expr import Expr, Var, Constant
from .expr import BinaryExpr, Condition, LessThan, LessEqual, Equal, NotEqual, Add, Sub, Multiply, Div, Mod, FloorDiv
from .expr import Let, Cast, LogicalAnd, LogicalOr, TensorElement, Call, TensorSlice, LogicalNot, Neg
from .expr import BitwiseXor, BitwiseAnd, BitwiseNot, BitwiseOr, Dereference
from .expr import var, scalar_var, tensor_var, is_one, is_zero, convert
from .expr import logical_and, logical_or, logical_not, equal, less_equal, less_than, not_equal

from .layout import DataLayout

from .mapping import TaskMapping

from .stmt import Stmt, DeclareStmt, EvaluateStmt, BufferStoreStmt, AssignStmt, ForStmt, IfStmt, AssertStmt, SeqStmt
from .stmt import LetStmt, ForMappingStmt, ReturnStmt, WhileStmt, BreakStmt, ContinueStmt
from .stmt import ForStmtAttr

from .compute import TensorNode, ScalarNode

from .builders import FunctionBuilder, StmtBuilder

from .task import Task, save_task, load_task

from .tools import infer_type

from .utils import index_serialize, index_deserialize

from .dtypes import float32, tfloat32, bfloat16, float16, float8_e4m3, float8_e5m2
from .dtypes import int64, int32, int16, int8, uint64, uint32, uint16, uint8
from .dtypes import float32x4, float16x2, boolean
