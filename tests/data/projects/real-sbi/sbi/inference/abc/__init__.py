# This file is part of sbi, a toolkit for simulation-based inference. sbi is licensed
# under the Apache License Version 2.0, see <https://www.apache.org/licenses/>

from sbi.inference.abc.mcabc import MCABC
from sbi.inference.abc.smcabc import SMCABC

__all__ = ["MCABC", "SMCABC"]
