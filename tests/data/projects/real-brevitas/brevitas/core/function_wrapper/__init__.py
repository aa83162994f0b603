# Copyright (C) 2023, Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause

from .clamp import ClampMin
from .clamp import FloatClamp
from .clamp import ScalarClamp
from .clamp import TensorClamp
from .learned_round import LearnedRoundSte
from .misc import Abs
from .misc import Identity
from .misc import InplaceLogTwo
from .misc import LogTwo
from .misc import PowerOfTwo
from .ops_ste import CeilSte
from .ops_ste import DPURoundSte
from .ops_ste import FloorSte
from .ops_ste import InplaceTensorClampSte
from .ops_ste import RoundSte
from .ops_ste import RoundToZeroSte
from .ops_ste import ScalarClampMinSte
from .ops_ste import ScalarClampSte
from .ops_ste import ScalarSignedClampMinSte
from .ops_ste import TensorClampSte
from .shape import OverBatchOverOutputChannelView
from .shape import OverBatchOverTensorView
from .shape import OverOutputChannelView
from .shape import OverTensorView
from .shape import StatsInputViewShapeImpl
from .stochastic_round import StochasticRoundSte
