# Copyright (c) 2021-2026 Gustavo de Rosa.
# Licensed under the Apache License, Version 2.0.

"""Functions package for objective function wrappers."""

from otorchmizer.functions.constrained import ConstrainedFunction

__all__ = ["ConstrainedFunction"]
