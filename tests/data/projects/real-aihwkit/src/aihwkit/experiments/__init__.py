# -*- coding: utf-8 -*-

# (C) Copyright 2026 IBM. All Rights Reserved.
#
# Licensed under the MIT license. See LICENSE file in the project root for details.

"""High-level interface for executing Experiments."""

# Convenience imports for easier access to the classes.

from aihwkit.experiments.experiments.training import BasicTraining
from aihwkit.experiments.experiments.inferencing import BasicInferencing
