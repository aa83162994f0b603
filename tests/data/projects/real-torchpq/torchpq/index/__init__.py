from .FlatIndex import FlatIndex
from .IVFPQIndex import IVFPQIndex
from .IVFPQRIndex import IVFPQRIndex