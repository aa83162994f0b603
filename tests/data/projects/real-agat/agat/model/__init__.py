# -*- coding: utf-8 -*-
"""
Created on Tue Aug 15 11:41:20 2023

@author: ZHANG Jun
"""

from .layer import Layer
from .model import PotentialModel, CrystalPropertyModel, AtomicPropertyModel, AtomicVectorModel
from .fit import Fit
from agat.lib.model_lib import save_model, load_model, save_state_dict, load_state_dict
