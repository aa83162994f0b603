"""
Copyright © 2023 Howard Hughes Medical Institute, Authored by Carsen Stringer and Marius Pachitariu.
"""
from .utils import get_file_list, init_dbs
from .h5 import h5py_to_binary
from .nwb import save_nwb, read_nwb, nwb_to_binary
from .save import combined, compute_dydx, save_mat
from .sbx import sbx_to_binary
from .movie import movie_to_binary
from .tiff import ome_to_binary, tiff_to_binary
from .nd2 import nd2_to_binary
from .dcam import dcimg_to_binary
from .binary import BinaryFile, BinaryFileCombined
from .server import send_jobs
