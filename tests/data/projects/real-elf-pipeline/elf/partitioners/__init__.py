"""
Automatic partition of a computation graph
"""

from .tracing import (
	try_extract_graph,
	extract_graph_fx,
	extract_graph_fx_safe,
	extract_graph_export,
	trace,
)
from .partition import PartitionResult, partition, split
from .profile import profile_operations
from .utils import Signature, sequential_signatures

from .custom import split_graph, split_graph_constrained
from .metis import split_graph_metis
from .dagP import split_graph_dagP

from ..registry import PARTITIONERS, TRACERS

PARTITIONERS.register(
	"naive",
	split_graph,
	"Naively partition into roughly equal blocks without taking memory into account.",
)
PARTITIONERS.register(
	"constrained",
	split_graph_constrained,
	"Naively partition into roughly equal blocks, with a constraint of 1 input and 1 output per block.",
)
PARTITIONERS.register(
	"metis", split_graph_metis, "Graph partitioning using METIS. Requires gpmetis to be installed."
)
PARTITIONERS.register(
	"dagP", split_graph_dagP, "Graph partitioning using dagP. Requires rMLGP to be installed."
)

TRACERS.register("default", try_extract_graph, "Try all tracers and use the first one that works")
TRACERS.register("fx", extract_graph_fx, "Extract graph using torch.fx")
TRACERS.register(
	"fx_safe",
	extract_graph_fx_safe,
	"Extract graph using torch.fx, by marking every non-traceable submodule as leaf, iteratively.",
)
TRACERS.register("export", extract_graph_export, "Extract graph using torch.export")


__all__ = [
	"PartitionResult",
	"partition",
	"trace",
	"split",
	"profile_operations",
	"sequential_signatures",
	"Signature",
]
