# -*- coding: utf-8 -*-
#
# Copyright Amazon.com, Inc. or its affiliates. All Rights Reserved.
# SPDX-License-Identifier: Apache-2.0

from .analysis import *
from .complex_to_graph import *
from .early_stop import *
from .eval import *
from .featurizers import *
from .io import *
from .jtvae import *
from .mol_to_graph import *
from .splitters import *
