from .layer import Layer
from .input_layer import InputLayer
from .prod_layer import ProdLayer
from .sum_layer import SumLayer
from .external_sum_layer import ExternalParamsSumLayer, ExternalNodeInfo, StagedExternalParams, \
                               EXTERNAL_PARAMS_BUFFER_KWARG, EXTERNAL_PARAMS_GRAD_BUFFER_KWARG, \
                               EXTERNAL_PARAMS_KWARG, EXTERNAL_PARAMS_GRAD_KWARG
from .layer_group import LayerGroup