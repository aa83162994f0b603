from .conv import DFGNNBackend
