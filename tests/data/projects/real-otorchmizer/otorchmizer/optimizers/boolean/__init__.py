# Copyright (c) 2021-2026 Gustavo de Rosa.
# Licensed under the Apache License, Version 2.0.

"""Boolean-based optimizers for binary/discrete optimization."""

from otorchmizer.optimizers.boolean.bmrfo import BMRFO
from otorchmizer.optimizers.boolean.bpso import BPSO
from otorchmizer.optimizers.boolean.umda import UMDA

__all__ = ["BMRFO", "BPSO", "UMDA"]
