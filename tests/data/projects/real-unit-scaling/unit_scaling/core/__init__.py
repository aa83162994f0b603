# Copyright (c) 2024 Graphcore Ltd. All rights reserved.

"""Core components for advanced library usage."""

from . import functional

__all__ = ["functional"]
