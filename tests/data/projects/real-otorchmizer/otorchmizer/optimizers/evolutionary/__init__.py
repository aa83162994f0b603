# Copyright (c) 2021-2026 Gustavo de Rosa.
# Licensed under the Apache License, Version 2.0.

"""Evolutionary optimizers based on biological evolution."""

from otorchmizer.optimizers.evolutionary.bsa import BSA
from otorchmizer.optimizers.evolutionary.de import DE
from otorchmizer.optimizers.evolutionary.ep import EP
from otorchmizer.optimizers.evolutionary.es import ES
from otorchmizer.optimizers.evolutionary.foa import FOA
from otorchmizer.optimizers.evolutionary.ga import GA
from otorchmizer.optimizers.evolutionary.gp import GP
from otorchmizer.optimizers.evolutionary.gsgp import GSGP
from otorchmizer.optimizers.evolutionary.hs import GHS, GOGHS, HS, IHS, NGHS, SGHS
from otorchmizer.optimizers.evolutionary.iwo import IWO
from otorchmizer.optimizers.evolutionary.rra import RRA

__all__ = [
    "BSA",
    "DE",
    "EP",
    "ES",
    "FOA",
    "GA",
    "GP",
    "GHS",
    "GOGHS",
    "GSGP",
    "HS",
    "IHS",
    "IWO",
    "NGHS",
    "RRA",
    "SGHS",
]
