"""
This module provides functions and classes for interpreting modules
trained with Selene.

"""
from .vis import sequence_logo
from .vis import heatmap
from .vis import rescale_score_matrix
from .vis import ordered_variants_and_indices
from .vis import sort_standard_chrs
from .vis import load_variant_abs_diff_scores
from .vis import variant_diffs_scatter_plot
from .ism_result import ISMResult

__all__ = ["sequence_logo", "heatmap", "rescale_score_matrix",
           "variant_diffs_scatter_plot", "ordered_variants_and_indices",
           "sort_standard_chrs", "load_variant_abs_diff_scores",
           "ISMResult"]
