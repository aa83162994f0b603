from tensorkrowch.models.mps_data import MPSData
from tensorkrowch.models.mpo import MPO, UMPO
from tensorkrowch.models.mps import (MPS, UMPS, MPSLayer, UMPSLayer,
                                ConvMPS, ConvUMPS, ConvMPSLayer, ConvUMPSLayer)
from tensorkrowch.models.peps import PEPS, UPEPS, ConvPEPS, ConvUPEPS
from tensorkrowch.models.tree import Tree, UTree, ConvTree, ConvUTree
