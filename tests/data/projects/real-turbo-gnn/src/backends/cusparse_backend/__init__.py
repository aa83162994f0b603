from .conv import СuSparseBackend, СuSparsePrecomputeBWDBackend
