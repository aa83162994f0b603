# Copyright 2022-2023 MetaOPT Team. All Rights Reserved.
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
"""Base class for neural network modules that hold meta-parameters and meta-modules."""

from torchopt.diff.implicit.nn.module import ImplicitMetaGradientModule  # circular reference
from torchopt.diff.zero_order.nn.module import ZeroOrderGradientModule  # circular reference
from torchopt.nn.module import MetaGradientModule
from torchopt.nn.stateless import reparameterize, reparametrize, swap_state


__all__ = [
    'MetaGradientModule',
    'ImplicitMetaGradientModule',
    'ZeroOrderGradientModule',
    'reparametrize',
    'reparameterize',
    'swap_state',
]
