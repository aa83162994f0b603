"""Corrections of MRI data and images outside the reconstruction.

EPI readout corrections, receive-field (bias) correction, gradient
nonlinearity correction, off-resonance field maps and spiral deblurring, and
susceptibility correction from a reversed phase-encoding pair.  SimpleITK
resamples; Triton and PyHySCO (``pip install 'bartorch[pyhysco]'``) are
optional.  Each is imported by the functions that use it.
"""

from __future__ import annotations

from bartorch.tools._correct._bias import bias_field_correct
from bartorch.tools._correct._epi import correct_lines, epi_ramp_operator, estimate_epi_phase
from bartorch.tools._correct._fieldmap import field_map_from_phase
from bartorch.tools._correct._gradunwarp import (
    CoefficientAccessor,
    GradientCoefficients,
    Gradunwarp,
)
from bartorch.tools._correct._reslice import reslice
from bartorch.tools._correct._spiral import ReadoutTiming, SpiralTransfer, deblur, fit_transfer
from bartorch.tools._correct._susceptibility import SusceptibilityCorrection, correct_susceptibility

__all__ = [
    "CoefficientAccessor",
    "GradientCoefficients",
    "Gradunwarp",
    "ReadoutTiming",
    "SpiralTransfer",
    "SusceptibilityCorrection",
    "bias_field_correct",
    "correct_lines",
    "correct_susceptibility",
    "deblur",
    "epi_ramp_operator",
    "estimate_epi_phase",
    "field_map_from_phase",
    "fit_transfer",
    "reslice",
]
