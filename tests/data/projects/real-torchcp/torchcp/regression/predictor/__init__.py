# Copyright (c) 2023-present, SUSTech-ML.
# All rights reserved.
#
# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.
#

from .aci import ACIPredictor
from .ensemble import EnsemblePredictor
from .split import SplitPredictor
from .agaci import AgACIPredictor
from .cpd import ConformalPredictiveDistribution