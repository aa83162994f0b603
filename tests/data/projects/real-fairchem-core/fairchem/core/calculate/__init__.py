"""
Copyright (c) Meta Platforms, Inc. and affiliates.

This source code is licensed under the MIT license found in the
LICENSE file in the root directory of this source tree.
"""

from __future__ import annotations

from fairchem.core.calculate._batch import InferenceBatcher
from fairchem.core.calculate._ray_inference_cluster import (
    get_local_inference_raycluster,
    get_slurm_inference_raycluster,
)
from fairchem.core.calculate.ase_calculator import (
    FAIRChemCalculator,
    FormationEnergyCalculator,
)
from fairchem.core.calculate.dftd3_calculator import DFTD3Calculator
from fairchem.core.components.batch_server import (
    ModelSpec,
    setup_batch_predict_server,
    setup_multiplexed_batch_predict_server,
)
from fairchem.core.units.mlip_unit.api.inference import InferenceSettings

__all__ = [
    "FAIRChemCalculator",
    "FormationEnergyCalculator",
    "DFTD3Calculator",
    "InferenceBatcher",
    "InferenceSettings",
    "ModelSpec",
    "get_local_inference_raycluster",
    "get_slurm_inference_raycluster",
    "setup_batch_predict_server",
    "setup_multiplexed_batch_predict_server",
]
