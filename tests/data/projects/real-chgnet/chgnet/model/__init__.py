from __future__ import annotations

from chgnet.model.dynamics import CHGNetCalculator, MolecularDynamics, StructOptimizer
from chgnet.model.model import CHGNet
