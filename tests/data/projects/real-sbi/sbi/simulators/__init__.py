# This file is part of sbi, a toolkit for simulation-based inference. sbi is licensed
# under the Apache License Version 2.0, see <https://www.apache.org/licenses/>

from sbi.simulators.linear_gaussian import diagonal_linear_gaussian, linear_gaussian
from sbi.simulators.simutils import simulate_in_batches
