# SPDX-FileCopyrightText: Copyright (c) 2023-2024, NVIDIA CORPORATION.
# SPDX-License-Identifier: Apache-2.0
from .graph import CudaGraph, Graph
from .digraph import CudaDiGraph, DiGraph
from .multigraph import CudaMultiGraph, MultiGraph
from .multidigraph import CudaMultiDiGraph, MultiDiGraph

from .function import *
