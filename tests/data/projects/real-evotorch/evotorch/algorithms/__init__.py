# Copyright 2022 NNAISENSE SA
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

"""
This namespace contains the implementations of various
evolutionary algorithms.
"""

__all__ = (
    "CMAES",
    "PyCMAES",
    "CEM",
    "Cosyne",
    "MAPElites",
    "PGPE",
    "SNES",
    "XNES",
    "GeneticAlgorithm",
    "SteadyStateGA",
    "SearchAlgorithm",
    "Cosyne",
)


from . import cmaes, distributed, ga, mapelites, pycmaes, searchalgorithm
from .cmaes import CMAES
from .distributed import CEM, PGPE, SNES, XNES
from .ga import Cosyne, GeneticAlgorithm, SteadyStateGA
from .mapelites import MAPElites
from .pycmaes import PyCMAES
from .searchalgorithm import SearchAlgorithm
