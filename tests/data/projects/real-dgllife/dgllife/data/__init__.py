# -*- coding: utf-8 -*-
#
# Copyright Amazon.com, Inc. or its affiliates. All Rights Reserved.
# SPDX-License-Identifier: Apache-2.0

from .alchemy import *
from .astrazeneca_chembl_solubility import *
from .csv_dataset import *
from .smiles_inference import *
from .pdbbind import *
from .pubchem_aromaticity import *
from .tox21 import *
from .esol import *
from .freesolv import *
from .lipophilicity import *
from .pcba import *
from .muv import *
from .hiv import *
from .bace import *
from .bbbp import *
from .toxcast import *
from .sider import *
from .clintox import *
from .uspto import *
from .jtvae import *
