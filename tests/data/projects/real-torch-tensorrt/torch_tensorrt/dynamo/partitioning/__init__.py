from ._adjacency_partitioner import partition as fast_partition
from ._global_partitioner import partition as global_partition
from ._hierarchical_partitioner import hierarchical_adjacency_partition
from .common import (
    build_profile_source_bounds,
    construct_submodule_inputs,
    get_graph_converter_support,
    run_shape_analysis,
)
