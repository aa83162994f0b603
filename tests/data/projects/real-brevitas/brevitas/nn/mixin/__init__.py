# Copyright (C) 2023, Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause

from .acc import AccQuantType
from .act import ActQuantType
from .act import QuantInputMixin
from .act import QuantNonLinearActMixin
from .act import QuantOutputMixin
from .base import QuantLayerMixin
from .parameter import BiasQuantType
from .parameter import QuantBiasMixin
from .parameter import QuantWeightMixin
from .parameter import WeightQuantType
