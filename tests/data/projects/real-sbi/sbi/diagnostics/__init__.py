# This file is part of sbi, a toolkit for simulation-based inference. sbi is licensed
# under the Apache License Version 2.0, see <https://www.apache.org/licenses/>

from sbi.diagnostics.lc2st import LC2ST, LC2ST_NF, LC2STScores, LC2STState
from sbi.diagnostics.misspecification import (
    calc_misspecification_logprob,
    calc_misspecification_mmd,
)
from sbi.diagnostics.sbc import check_sbc, get_nltp, run_sbc
from sbi.diagnostics.tarp import check_tarp, run_tarp

__all__ = [
    "check_sbc",
    "get_nltp",
    "run_sbc",
    "check_tarp",
    "run_tarp",
    "LC2ST",
    "LC2ST_NF",
    "LC2STScores",
    "LC2STState",
    "calc_misspecification_logprob",
    "calc_misspecification_mmd",
]
