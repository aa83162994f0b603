# SPDX-License-Identifier: Apache-2.0
"""optim subpackage — see blueprint section 7 layout."""

from lucid_yolo.optim.musgd import MuSGD
from lucid_yolo.optim.newton_schulz import orthogonalize

__all__ = ["MuSGD", "orthogonalize"]
