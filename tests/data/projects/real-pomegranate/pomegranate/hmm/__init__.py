# __init__.py
# Author: Jacob Schreiber <jmschreiber91@gmail.com>

from .dense_hmm import DenseHMM
from .sparse_hmm import SparseHMM
