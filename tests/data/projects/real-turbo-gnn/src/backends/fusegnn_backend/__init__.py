from .conv import FuseGNNBackend
