from .constants import INDEX_MAPPING_PLACEHOLDER, MAX_RECURSION_DEPTH, MAX_VALID_DIM
from .node import Node
from .dependency import Dependency
from .group import Group
from .graph import DependencyGraph
from . import shape_infer
from . import index_mapping

__all__ = ["Dependency", "Group", "DependencyGraph", "Node", "INDEX_MAPPING_PLACEHOLDER", "MAX_RECURSION_DEPTH", "MAX_VALID_DIM"]
