from .BaseContainer import BaseContainer
from .CellContainer import CellContainer
from .FlatContainer import FlatContainer
from .FlatContainerGroup import FlatContainerGroup
from .DistributedCellContainer import DistributedCellContainer
