# This file is a part of the `nequip` package. Please see LICENSE and README at the root for information on using it.
from .type_mapper import ChemicalSpeciesToAtomTypeMapper
from .dataset import DatasetIndexTransform
from .neighborlist import (
    NeighborListPruneTransform,
    NeighborListTransform,
    SortedNeighborListTransform,
)
from .stress_utils import (
    VirialToStressTransform,
    StressSignFlipTransform,
    AddNaNStressTransform,
)
from .cell_utils import (
    NonPeriodicCellTransform,
)

__all__ = [
    "ChemicalSpeciesToAtomTypeMapper",
    "DatasetIndexTransform",
    "NeighborListPruneTransform",
    "NeighborListTransform",
    "SortedNeighborListTransform",
    "VirialToStressTransform",
    "StressSignFlipTransform",
    "AddNaNStressTransform",
    "NonPeriodicCellTransform",
]
