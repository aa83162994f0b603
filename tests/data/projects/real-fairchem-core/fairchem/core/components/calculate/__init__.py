"""
Copyright (c) Meta Platforms, Inc. and affiliates.

This source code is licensed under the MIT license found in the
LICENSE file in the root directory of this source tree.
"""

from __future__ import annotations

from fairchem.core.components.runner import (
    PreemptableMixin,
    StopfairDetected,
)

from ._single.adsorbml_runner import AdsorbMLRunner
from ._single.adsorption_runner import AdsorptionRunner
from ._single.adsorption_singlepoint_runner import AdsorptionSinglePointRunner
from ._single.elasticity_runner import ElasticityRunner
from ._single.gscdb_runner import GSCDBRunner
from ._single.kappa_runner import KappaRunner
from ._single.liquid_density_runner import LiquidDensityRunner
from ._single.md_runner import MDRunner
from ._single.nve_md_runner import NVEMDRunner, get_nve_md_data
from ._single.omol_runner import OMolRunner
from ._single.pairwise_ct_runner import PairwiseCountRunner
from ._single.phonon_runner import MDRPhononRunner, get_mdr_phonon_data_list
from ._single.relaxation_runner import RelaxationRunner
from ._single.singlepoint_runner import SinglePointRunner
from .simulation_tools.thermostats import (
    BerendsenNPT,
    BussiThermostat,
    LangevinThermostat,
    NoseHooverNVT,
    Thermostat,
    VelocityVerletThermostat,
)
from .simulation_tools.trajectory import ParquetTrajectoryWriter, TrajectoryFrame

__all__ = [
    "AdsorbMLRunner",
    "AdsorptionRunner",
    "AdsorptionSinglePointRunner",
    "BerendsenNPT",
    "BussiThermostat",
    "ElasticityRunner",
    "GSCDBRunner",
    "KappaRunner",
    "LiquidDensityRunner",
    "LangevinThermostat",
    "MDRPhononRunner",
    "MDRunner",
    "NVEMDRunner",
    "NoseHooverNVT",
    "OMolRunner",
    "PairwiseCountRunner",
    "ParquetTrajectoryWriter",
    "PreemptableMixin",
    "RelaxationRunner",
    "SinglePointRunner",
    "StopfairDetected",
    "Thermostat",
    "TrajectoryFrame",
    "VelocityVerletThermostat",
    "get_mdr_phonon_data_list",
    "get_nve_md_data",
]
