#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# ~~ Imports ~~ ────────────────────────────────────────────────────────────────
from typing import List

# ~~ Exports ~~ ────────────────────────────────────────────────────────────────
__all__: List[str] = [
    "random_hcu",
    "random_hoe",
    "random_woe",
    "random_hue",
    "random_wue",
    "random_mce",
    "random_mre",
    "random_lce",
    "random_lre",
]
# ──────────────────────────────────────────────────────────────────────────────
from .api import random_cue as random_hcu
from .api import random_goe as random_hoe
from .api import random_goe as random_woe
from .api import random_gue as random_hue
from .api import random_gue as random_wue
from .api import random_jce as random_mce
from .api import random_jre as random_mre
from .api import random_wce as random_lce
from .api import random_wre as random_lre
