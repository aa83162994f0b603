#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# ~~ Imports ~~ ────────────────────────────────────────────────────────────────
from typing import List

# ~~ Exports ~~ ────────────────────────────────────────────────────────────────
__all__: List[str] = [
    "random_coe",
    "random_cue",
    "random_gce",
    "random_goe",
    "random_gre",
    "random_gue",
    "random_jce",
    "random_jre",
    "random_obs_csu",
    "random_obs_gue",
    "random_rho_bh",
    "random_rho_hs",
    "random_wce",
    "random_wre",
    "random_obs_cgi",
    "random_rho_pure",
]

# ──────────────────────────────────────────────────────────────────────────────
# From main API
from .api import random_coe
from .api import random_cue
from .api import random_gce
from .api import random_goe
from .api import random_gre
from .api import random_gue
from .api import random_jce
from .api import random_jre
from .api import random_wce
from .api import random_wre

# From quantum-specific API
from .quantum_api import random_rho_hs
from .quantum_api import random_rho_bh
from .quantum_api import random_obs_csu
from .quantum_api import random_obs_gue
from .quantum_api import random_obs_cgi
from .quantum_api import random_rho_pure

# From Aliases
from .aliases import random_hcu
from .aliases import random_hoe
from .aliases import random_woe
from .aliases import random_hue
from .aliases import random_wue
from .aliases import random_mce
from .aliases import random_mre
from .aliases import random_lce
from .aliases import random_lre
