# Copyright (c) 2023-present, SUSTech-ML.
# All rights reserved.
#
# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.
#

from .class_conditional import ClassConditionalPredictor
from .cluster import ClusteredPredictor
from .split import SplitPredictor
from .weight import WeightedPredictor
from .rc3p import RC3PPredictor