# Copyright 2025 InstaDeep Ltd
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

from mlip.data.chemical_system import ChemicalSystem
from mlip.data.chemical_systems_readers.ase_atoms_reader import ASEAtomsReader
from mlip.data.chemical_systems_readers.chemical_systems_reader import (
    ChemicalSystemsReader,
)
from mlip.data.chemical_systems_readers.extxyz_reader import ExtxyzReader
from mlip.data.chemical_systems_readers.hdf5_reader import Hdf5Reader
from mlip.data.configs import GraphDatasetBuilderConfig
from mlip.data.dataset_info import DatasetInfo
from mlip.data.graph_dataset_builder import (
    BuilderMode,
    GraphDatasetBuilder,
)
from mlip.data.helpers.combined_graph_dataset import CombinedGraphDataset
from mlip.data.helpers.hessian_utils import (
    pad_systems_hessians,
    process_graph_hessian,
    request_full_direct_hessian,
    skip_graph_hessian,
)
from mlip.data.single_graph_dataset_builder import SingleGraphDatasetBuilder
