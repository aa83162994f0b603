"""
Copyright 2021, Dana-Farber Cancer Institute and Weill Cornell Medicine
License: GNU GPL 2.0
"""

from .preprocessing import (
    ColorMergedSuperpixelExtractor,
    KNNGraphBuilder,
    RAGGraphBuilder,
)
from .utils import Graph, HACTPairData, build_assignment_matrix, get_full_instance_map
