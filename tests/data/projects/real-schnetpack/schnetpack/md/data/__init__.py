from .hdf5_data import *
from .spectra import *
