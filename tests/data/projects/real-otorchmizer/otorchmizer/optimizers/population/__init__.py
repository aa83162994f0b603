# Copyright (c) 2021-2026 Gustavo de Rosa.
# Licensed under the Apache License, Version 2.0.

"""Population-based optimizers inspired by animal group dynamics."""

from otorchmizer.optimizers.population.aeo import AEO
from otorchmizer.optimizers.population.ao import AO
from otorchmizer.optimizers.population.coa import COA
from otorchmizer.optimizers.population.epo import EPO
from otorchmizer.optimizers.population.gco import GCO
from otorchmizer.optimizers.population.gwo import GWO
from otorchmizer.optimizers.population.hho import HHO
from otorchmizer.optimizers.population.loa import LOA
from otorchmizer.optimizers.population.osa import OSA
from otorchmizer.optimizers.population.ppa import PPA
from otorchmizer.optimizers.population.pvs import PVS
from otorchmizer.optimizers.population.rfo import RFO

__all__ = [
    "AEO",
    "AO",
    "COA",
    "EPO",
    "GCO",
    "GWO",
    "HHO",
    "LOA",
    "OSA",
    "PPA",
    "PVS",
    "RFO",
]
