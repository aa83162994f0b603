"""
Copyright (c) Meta Platforms, Inc. and affiliates.

This source code is licensed under the MIT license found in the
LICENSE file in the root directory of this source tree.
"""

from __future__ import annotations

from ._benchmark_reducer import JsonDFReducer
from ._single.adsorbml_reducer import AdsorbMLReducer
from ._single.adsorption_reducer import AdsorptionReducer
from ._single.gscdb_reducer import GSCDBReducer
from ._single.kappa_reducer import Kappa103Reducer
from ._single.liquid_density_reducer import LiquidDensityReducer
from ._single.materials_discovery_reducer import MaterialsDiscoveryReducer
from ._single.nvemd_reducer import NVEMDReducer
from ._single.omc_polymorph_reducer import OMCPolymorphReducer
from ._single.omol_reducer import OMolReducer
from ._single.uma_speed_benchmark import InferenceBenchRunner

__all__ = [
    "AdsorbMLReducer",
    "AdsorptionReducer",
    "GSCDBReducer",
    "InferenceBenchRunner",
    "JsonDFReducer",
    "Kappa103Reducer",
    "LiquidDensityReducer",
    "MaterialsDiscoveryReducer",
    "NVEMDReducer",
    "OMCPolymorphReducer",
    "OMolReducer",
]
