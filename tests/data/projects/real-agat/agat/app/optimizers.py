# -*- coding: utf-8 -*-
"""
Created on Tue Nov 19 19:14:31 2024

@author: ZHANGJUN
"""

from .ase_torch.bfgs_torch import BFGSTorch
from .ase_torch.ase_dyn import MDMinTorch
