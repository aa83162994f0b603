# -*- coding: utf-8 -*-
"""
Created on Tue Aug 15 11:41:20 2023

@author: ZHANG Jun
"""

from .build_graph import CrystalGraph, AseGraphTorch
from .build_dataset import ReadGraphs, ExtractVaspFiles, BuildDatabase
from .dataset import concat_graphs, concat_dataset, select_graphs_random
from .dataset import select_graphs_from_dataset_random, save_dataset
from .atomic_feature import get_atomic_feature_onehot
from .load_dataset import LoadDataset, Collater
from .dataset import Dataset
from .dataset import Collater as Collater_new

from ..lib.model_lib import load_graph_build_method
