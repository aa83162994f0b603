# Copyright (c) 2023-present, SUSTech-ML.
# All rights reserved.
#
# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.
#

from .aps import APS
from .knn import KNN
from .margin import Margin
from .raps import RAPS
from .saps import SAPS
from .lac import LAC
from .topk import TOPK
from .entmax import EntmaxScore
