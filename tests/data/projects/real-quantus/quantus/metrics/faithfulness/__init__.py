# This file is part of Quantus.
# Quantus is free software: you can redistribute it and/or modify it under the terms of the GNU Lesser General Public License as published by the Free Software Foundation, either version 3 of the License, or (at your option) any later version.
# Quantus is distributed in the hope that it will be useful, but WITHOUT ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE. See the GNU Lesser General Public License for more details.
# You should have received a copy of the GNU Lesser General Public License along with Quantus. If not, see <https://www.gnu.org/licenses/>.
# Quantus project URL: <https://github.com/understandable-machine-intelligence-lab/Quantus>.

from quantus.metrics.faithfulness.faithfulness_correlation import (
    FaithfulnessCorrelation,
)
from quantus.metrics.faithfulness.faithfulness_estimate import FaithfulnessEstimate
from quantus.metrics.faithfulness.infidelity import Infidelity
from quantus.metrics.faithfulness.irof import IROF
from quantus.metrics.faithfulness.monotonicity import Monotonicity
from quantus.metrics.faithfulness.monotonicity_correlation import (
    MonotonicityCorrelation,
)
from quantus.metrics.faithfulness.pixel_flipping import PixelFlipping
from quantus.metrics.faithfulness.region_perturbation import RegionPerturbation
from quantus.metrics.faithfulness.road import ROAD
from quantus.metrics.faithfulness.selectivity import Selectivity
from quantus.metrics.faithfulness.sensitivity_n import SensitivityN
from quantus.metrics.faithfulness.sufficiency import Sufficiency, BatchSufficiency
