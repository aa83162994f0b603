# -*- coding: utf-8 -*-
#
# Copyright Amazon.com, Inc. or its affiliates. All Rights Reserved.
# SPDX-License-Identifier: Apache-2.0
#
# Graph neural networks for updating node representations

from .attentivefp import *
from .gat import *
from .gatv2 import *
from .gcn import *
from .gin import *
from .gnn_ogb import *
from .nf import *
from .graphsage import *
from .mgcn import *
from .mpnn import *
from .schnet import *
from .weave import *
from .wln import *
from .pagtn import *
