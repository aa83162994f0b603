# Copyright (c) MONAI Consortium
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#     http://www.apache.org/licenses/LICENSE-2.0
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# -------------------------------------------------------------------------
# Modifications made by Zack Duitz, 2025.
# Significant changes include: Removing most of the file and adding type definitions from somewhere else
# This file is therefore a modified version of the original MONAI file.
# -------------------------------------------------------------------------

from __future__ import annotations
from .component_store import ComponentStore
from .enums import UpsampleMode, InterpolateMode
from .module import look_up_option, optional_import, version_leq
from .misc import has_option, ensure_tuple_rep
from .type_definitions import NdarrayOrTensor, NdarrayTensor, PathLike
