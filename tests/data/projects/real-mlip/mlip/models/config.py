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

from pydantic import BaseModel


class MLIPNetworkConfig(BaseModel):
    """Base class for all `MLIPNetwork` configs.

    Used (1) for typing wherever any of the `MLIPNetwork` configs are accepted, and
    (2) for shared config values that this library requires a model config to have.

    Attributes:
        add_atomic_energies: Whether to add atomic energies to the final energies.
                             Default is `True`.
    """

    add_atomic_energies: bool = True
