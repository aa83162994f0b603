# -*- coding: utf-8 -*-
from .data import evaluate_print
from .data import generate_data
from .stat_models import pairwise_distances_no_broadcast
from .stat_models import pearsonr_mat
from .stat_models import wpearsonr
from .utility import argmaxn
from .utility import check_parameter
from .utility import get_label_n
from .utility import get_optimal_n_bins
from .utility import invert_order
from .utility import precision_n_scores
from .utility import score_to_label
from .utility import standardizer

__all__ = ['check_parameter',
           'standardizer',
           'score_to_label',
           'precision_n_scores',
           'get_label_n',
           'argmaxn',
           'invert_order',
           'get_optimal_n_bins',
           'generate_data',
           'evaluate_print',
           'pairwise_distances_no_broadcast',
           'wpearsonr',
           'pearsonr_mat']
