"""
Copyright (c) Meta Platforms, Inc. and affiliates.

This source code is licensed under the MIT license found in the
LICENSE file in the root directory of this source tree.
"""

from __future__ import annotations

from .adsorbml_runner import AdsorbMLRunner
from .adsorption_runner import AdsorptionRunner
from .adsorption_singlepoint_runner import AdsorptionSinglePointRunner
from .elasticity_runner import ElasticityRunner
from .kappa_runner import KappaRunner
from .liquid_density_runner import LiquidDensityRunner
from .nve_md_runner import NVEMDRunner
from .omol_runner import OMolRunner
from .pairwise_ct_runner import PairwiseCountRunner
from .phonon_runner import MDRPhononRunner
from .relaxation_runner import RelaxationRunner
from .singlepoint_runner import SinglePointRunner

__all__ = [
    "AdsorptionRunner",
    "AdsorbMLRunner",
    "AdsorptionSinglePointRunner",
    "ElasticityRunner",
    "KappaRunner",
    "LiquidDensityRunner",
    "NVEMDRunner",
    "OMolRunner",
    "PairwiseCountRunner",
    "MDRPhononRunner",
    "RelaxationRunner",
    "SinglePointRunner",
]
