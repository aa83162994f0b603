# Copyright 2021 The NetKet Authors - All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#    http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

from netket.operator._abstract_observable import (
    AbstractObservable as AbstractObservable,
)
from netket._src.observable.renyi2 import (
    Renyi2EntanglementEntropy as Renyi2EntanglementEntropy,
)
from netket._src.observable.variance import (
    VarianceObservable as VarianceObservable,
)
from netket._src.observable.infidelity import (
    InfidelityOperator as InfidelityOperator,
)
from netket._src.observable.correlator import (
    ConnectedCorrelator as ConnectedCorrelator,
)
from netket._src.observable.vscore import (
    VScore as VScore,
)

from netket.utils.moduletools import auto_export as _auto_export

_auto_export(__name__)
del _auto_export
