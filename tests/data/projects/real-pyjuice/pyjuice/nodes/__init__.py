from .nodes import CircuitNodes
from .input_nodes import InputNodes
from .prod_nodes import ProdNodes
from .sum_nodes import SumNodes
from .external_sum_nodes import ExternalParamsSumNodes
from .external_params import ExternalSumParams, LowRankSumParams, BlockScaleSumParams
from . import external_params
from .construction import multiply, summate, inputs, set_block_size, structural_properties
from .methods.traversal import foreach, foldup_aggregate
from .methods import edge_constructors