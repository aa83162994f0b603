# -*- coding: utf-8 -*-
"""
Created on Tue Aug 15 11:41:20 2023

@author: ZHANG Jun
"""

from .adsorbate_poscar import adsorbate_poscar
from .exceptions import FileExit
from .file_lib import generate_file_name, file_exit, modify_INCAR
from .model_lib import save_model, load_model, save_state_dict, load_state_dict
from .model_lib import config_parser, EarlyStopping, load_graph_build_method, PearsonR

