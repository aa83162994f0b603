# Copyright (c) 2021-2026 Gustavo de Rosa.
# Licensed under the Apache License, Version 2.0.

"""Core package for all Otorchmizer foundational modules."""

from otorchmizer.core.device import CUDAGraphRunner, DeviceManager
from otorchmizer.core.function import Function
from otorchmizer.core.node import Node
from otorchmizer.core.optimizer import Optimizer, UpdateContext
from otorchmizer.core.population import Population
from otorchmizer.core.space import Space

__all__ = [
    "CUDAGraphRunner",
    "DeviceManager",
    "Function",
    "Node",
    "Optimizer",
    "UpdateContext",
    "Population",
    "Space",
]
