"""RGB color transfer on NVIDIA GPUs without pretrained weights."""

from .api import adain, transfer, wavelet
from .colorfm import ColorFlow, colorfm, fit_colorfm, fit_colorfm_model
from .metrics import ms_swd, srgb_to_lab
from .ot import (
    ColorLUT,
    TransportPlan,
    apply_lut,
    fit_lut,
    partial_sinkhorn,
    sinkhorn,
    sinkhorn_plan,
    sliced_ot,
    sliced_transport,
)

__version__ = "0.1.0"
__all__ = [
    "ColorFlow",
    "colorfm",
    "fit_colorfm",
    "fit_colorfm_model",
    "ColorLUT",
    "TransportPlan",
    "adain",
    "apply_lut",
    "fit_lut",
    "ms_swd",
    "partial_sinkhorn",
    "sinkhorn",
    "sinkhorn_plan",
    "sliced_ot",
    "sliced_transport",
    "srgb_to_lab",
    "transfer",
    "wavelet",
]
