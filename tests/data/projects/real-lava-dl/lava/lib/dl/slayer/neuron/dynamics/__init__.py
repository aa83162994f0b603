# Copyright (C) 2022 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from . import leaky_integrator, resonator
from . import adaptive_threshold
from . import adaptive_phase_th, adaptive_resonator

__all__ = [
    'leaky_integrator',
    'resonator',
    'adaptive_threshold',
    'adaptive_phase_th',
    'adaptive_resonator',
]
