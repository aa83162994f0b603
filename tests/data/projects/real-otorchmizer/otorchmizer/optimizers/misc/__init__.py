# Copyright (c) 2021-2026 Gustavo de Rosa.
# Licensed under the Apache License, Version 2.0.

"""Miscellaneous optimizers (grid search, hill climbing, etc.)."""

from otorchmizer.optimizers.misc.aoa import AOA
from otorchmizer.optimizers.misc.cem import CEM
from otorchmizer.optimizers.misc.doa import DOA
from otorchmizer.optimizers.misc.gs import GS
from otorchmizer.optimizers.misc.hc import HC
from otorchmizer.optimizers.misc.nds import NDS

__all__ = ["AOA", "CEM", "DOA", "GS", "HC", "NDS"]
