from .fake_param import DashFakeParam
from .matrix_block import DashMatrixBlock
from .shapes import DashShape3D, DashMultiShape, DashShapesCalculator
from .stats import PartitionStats
from .stacked_blocks_handler import DashStackedBlocksHandler