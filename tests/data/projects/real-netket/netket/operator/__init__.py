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

from ._abstract_operator import AbstractOperator

from ._discrete_operator import DiscreteOperator, to_sparse_cached
from ._discrete_operator_jax import DiscreteJaxOperator

from ._pauli_strings import PauliStringsNumba, PauliStringsJax, PauliStrings
from ._local_operator import LocalOperatorNumba, LocalOperatorJax, LocalOperator
from ._ising import Ising, IsingJax, IsingNumba
from ._bose_hubbard import BoseHubbard, BoseHubbardNumba, BoseHubbardJax
from ._graph_operator import GraphOperator
from ._lazy import Adjoint, Transpose, Squared
from ._heisenberg import Heisenberg

from ._abstract_super_operator import AbstractSuperOperator
from ._local_liouvillian import LocalLiouvillian

from ._continuous_operator import ContinuousOperator
from ._kinetic import KineticEnergy
from ._potential import PotentialEnergy

from ._fermion2nd import (
    FermionOperator2nd,
    FermionOperator2ndJax,
    FermionOperator2ndNumba,
)
from netket._src.operator.particle_number_conserving_fermionic.fermihubbard import (
    FermiHubbardJax as FermiHubbardJax,
)

from ._sum import SumOperator
from ._prod import ProductOperator
from ._embed import EmbedOperator


from . import spin, boson, fermion
from . import permutation

from netket.utils import _auto_export

_auto_export(__name__)
