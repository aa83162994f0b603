from .lodestar import LodeSTAR
