# Copyright Universitat Pompeu Fabra 2020-2023  https://www.compscience.org
# Distributed under the MIT License.
# (See accompanying file README.md file or copy at http://opensource.org/licenses/MIT)

from .ace import Ace, AceHF
from .ani import ANI1, ANI1CCX, ANI1X, ANI2X
from .comp6 import (
    ANIMD,
    DrugBank,
    GDB07to09,
    GDB10to13,
    Tripeptides,
    S66X8,
    COMP6v1,
    COMP6v2,
)
from .mdcath import MDCATH
from .custom import Custom
from .water import WaterBox
from .hdf import HDF5
from .md17 import MD17
from .md22 import MD22
from .qm9 import QM9
from .qm9q import QM9q
from .spice import SPICE
from .genentech import GenentechTorsions
from .maceoff import MACEOFF

__all__ = [
    "Ace",
    "AceHF",
    "ANIMD",
    "ANI1",
    "ANI1CCX",
    "ANI1X",
    "ANI2X",
    "COMP6v1",
    "COMP6v2",
    "Custom",
    "DrugBank",
    "GDB07to09",
    "GDB10to13",
    "GenentechTorsions",
    "HDF5",
    "MDCATH",
    "MD17",
    "MD22",
    "QM9",
    "QM9q",
    "S66X8",
    "SPICE",
    "Tripeptides",
    "WaterBox",
    "MACEOFF",
]
