# Copyright (c) 2023-present, SUSTech-ML.
# All rights reserved.
#
# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.
#

from .abs import ABS
from .norabs import NorABS, DifficultyEstimator
from .cqr import CQR
from .cqrfm import CQRFM
from .cqrm import CQRM
from .cqrr import CQRR
from .r2ccp import R2CCP
from .sign import Sign