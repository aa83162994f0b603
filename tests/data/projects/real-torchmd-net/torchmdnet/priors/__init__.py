# Copyright Universitat Pompeu Fabra 2020-2023  https://www.compscience.org
# Distributed under the MIT License.
# (See accompanying file README.md file or copy at http://opensource.org/licenses/MIT)

from torchmdnet.priors.atomref import Atomref, LearnableAtomref
from torchmdnet.priors.d2 import D2
from torchmdnet.priors.zbl import ZBL
from torchmdnet.priors.coulomb import Coulomb

__all__ = ["Atomref", "LearnableAtomref", "D2", "ZBL", "Coulomb"]
