# Copyright (C) 2023, Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause

from .float_parameter_quant import WeightFloatQuantProxyFromInjector
from .float_runtime_quant import ActFloatQuantProxyFromInjector
from .parameter_quant import BiasQuantProxyFromInjector
from .parameter_quant import BiasQuantProxyFromInjectorBase
from .parameter_quant import DecoupledWeightQuantProxyFromInjector
from .parameter_quant import DecoupledWeightQuantWithInputProxyFromInjector
from .parameter_quant import WeightQuantProxyFromInjector
from .parameter_quant import WeightQuantProxyFromInjectorBase
from .runtime_quant import ActQuantProxyFromInjector
from .runtime_quant import ActQuantProxyFromInjectorBase
from .runtime_quant import ClampQuantProxyFromInjector
from .runtime_quant import TruncQuantProxyFromInjector
