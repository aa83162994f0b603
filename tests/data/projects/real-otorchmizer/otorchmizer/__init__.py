# Copyright (c) 2021-2026 Gustavo de Rosa.
# Licensed under the Apache License, Version 2.0.

"""PyTorch-based nature-inspired meta-heuristic optimization."""

from otorchmizer.otorchmizer import Otorchmizer

__all__ = ["Otorchmizer"]
__version__ = "3.0.0"
