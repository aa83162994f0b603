# Copyright 2020 Google LLC
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

from ._brownian import (BaseBrownian, BrownianInterval, BrownianPath, BrownianTree, ReverseBrownian,
                        brownian_interval_like)
from ._core.adjoint import sdeint_adjoint
from ._core.base_sde import BaseSDE, SDEIto, SDEStratonovich
from ._core.sdeint import sdeint

BrownianInterval.__init__.__annotations__ = {}
BrownianPath.__init__.__annotations__ = {}
BrownianTree.__init__.__annotations__ = {}
sdeint.__annotations__ = {}
sdeint_adjoint.__annotations__ = {}

__version__ = '0.2.6'
