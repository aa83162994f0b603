# This file is a part of the `nequip` package. Please see LICENSE and README at the root for information on using it.
from ._key_registry import (
    register_fields,
    deregister_fields,
    _register_field_prefix,
    get_field_type,
    _NODE_FIELDS,
    _EDGE_FIELDS,
    _GRAPH_FIELDS,
    _LONG_FIELDS,
    _CARTESIAN_TENSOR_FIELDS,
    ABBREV,
)
from .dict import from_dict
from .ase import from_ase, to_ase
from ._nl import (
    compute_neighborlist_,
    register_neighborlist_backend,
    DEFAULT_NEIGHBORLIST_BACKEND,
)
from ._sampler import PartialSampler
from .stats import (
    Count,
    Mean,
    MeanAbsolute,
    RootMeanSquare,
    StandardDeviation,
    Max,
    Min,
)
from .stats_manager import (
    DataStatisticsManager,
    CommonDataStatisticsManager,
    EnergyOnlyDataStatisticsManager,
)
from .modifier import (
    BaseModifier,
    PerAtomModifier,
    MappedFieldModifier,
    EdgeLengths,
    NumNeighbors,
)


__all__ = [
    "register_fields",
    "deregister_fields",
    "_register_field_prefix",
    "get_field_type",
    "PartialSampler",
    "_NODE_FIELDS",
    "_EDGE_FIELDS",
    "_GRAPH_FIELDS",
    "_LONG_FIELDS",
    "_CARTESIAN_TENSOR_FIELDS",
    "ABBREV",
    "from_dict",
    "from_ase",
    "to_ase",
    "compute_neighborlist_",
    "register_neighborlist_backend",
    "DEFAULT_NEIGHBORLIST_BACKEND",
    "DataStatisticsManager",
    "CommonDataStatisticsManager",
    "EnergyOnlyDataStatisticsManager",
    "Count",
    "Mean",
    "MeanAbsolute",
    "RootMeanSquare",
    "StandardDeviation",
    "Max",
    "Min",
    "BaseModifier",
    "PerAtomModifier",
    "MappedFieldModifier",
    "EdgeLengths",
    "NumNeighbors",
]
