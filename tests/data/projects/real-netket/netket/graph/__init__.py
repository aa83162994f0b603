# Copyright 2021 The NetKet Authors - All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#    http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

from .abstract_graph import AbstractGraph
from .graph import Graph, Edgeless, DoubledGraph, disjoint_union
from .lattice import Lattice
from .common_lattices import (
    Grid,
    Hypercube,
    Cube,
    Square,
    Chain,
    BCC,
    FCC,
    Diamond,
    Pyrochlore,
    Triangular,
    Honeycomb,
    Kagome,
    KitaevHoneycomb,
)

from netket.utils import _hide_submodules, _auto_export

_auto_export(__name__)
_hide_submodules(__name__)
