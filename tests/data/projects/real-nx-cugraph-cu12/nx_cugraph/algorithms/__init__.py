# SPDX-FileCopyrightText: Copyright (c) 2023-2025, NVIDIA CORPORATION.
# SPDX-License-Identifier: Apache-2.0
from . import (
    bipartite,
    centrality,
    cluster,
    community,
    components,
    link_analysis,
    link_prediction,
    lowest_common_ancestors,
    operators,
    shortest_paths,
    tournament,
    traversal,
    tree,
)
from .bipartite import complete_bipartite_graph
from .centrality import *
from .cluster import *
from .components import *
from .core import *
from .dag import *
from .isolate import *
from .link_analysis import *
from .link_prediction import *
from .lowest_common_ancestors import *
from .operators import *
from .reciprocity import *
from .shortest_paths import *
from .traversal import *
from .tree.recognition import *
