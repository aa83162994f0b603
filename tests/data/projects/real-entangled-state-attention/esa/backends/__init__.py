# Copyright 2026 Zameer Hussain and Akhtar Hussain
# Licensed under the Apache License, Version 2.0.

from .flare import FlareESA, flare_scan
from .thunder import ThunderESA, thunder_scan
from .pulse import PulseESA, pulse_scan

__all__ = [
    "FlareESA",
    "ThunderESA",
    "PulseESA",
    "flare_scan",
    "thunder_scan",
    "pulse_scan",
]
