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
from .base_functor import BaseFunctor, BaseVisitor, BaseRewriter
from .type_functor import TypeFunctor, TypeVisitor, TypeRewriter
from .mapping_functor import MappingFunctor, MappingVisitor, MappingRewriter
from .layout_functor import LayoutFunctor, LayoutVisitor, LayoutRewriter
from .expr_functor import ExprFunctor, ExprVisitor, ExprRewriter
from .stmt_functor import StmtFunctor, StmtVisitor, StmtRewriter
from .compute_functor import ComputeFunctor, ComputeVisitor, ComputeRewriter
from .module_functor import ModuleFunctor, ModuleVisitor, ModuleRewriter
from .ir_functor import IRFunctor, IRVisitor, IRRewriter
