# -*- coding: utf-8 -*-
#
# Copyright Amazon.com, Inc. or its affiliates. All Rights Reserved.
# SPDX-License-Identifier: Apache-2.0
#
# Readout functions for computing molecular representations
# out of node and edge representations.

from .attentivefp_readout import *
from .mlp_readout import *
from .sum_and_max import *
from .weave_readout import *
from .weighted_sum_and_max import *
