"""
Copyright © 2023 Howard Hughes Medical Institute, Authored by Carsen Stringer and Marius Pachitariu.
"""
from .dcnv import preprocess, oasis, baseline_maximin
from .extract import extraction_wrapper
from .masks import create_cell_mask, create_neuropil_masks, create_cell_pix