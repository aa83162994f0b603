
from .factory import *

from .cyclicgroup import CyclicGroup
from .dihedralgroup import DihedralGroup
from .so2group import SO2
from .o2group import O2
from .so3group import SO3
from .o3group import O3
from .ico import Icosahedral
from .octa import Octahedral


__all__ = [
    # "Group",
    "CyclicGroup",
    "DihedralGroup",
    "SO2",
    "O2",
    "SO3",
    "O3",
    "Icosahedral",
    "cyclic_group",
    "dihedral_group",
    "so2_group",
    "o2_group",
    "trivial_group",
    "ico_group",
    "octa_group",
]
