from .torch_transformer_layers import (
    TransformerEncoderLayer,
    TransformerDecoderLayer,
    TransformerEmbeddingLayer,
)
from .quantization import TensorQuantizer, act_quant_config, QuantLinear
from .builder.transformer_builder import TransformerBuilder
from .builder.operator_builder import OperatorBuilder
from .builder.layer_builder import LayerBuilder

layer_cuda_module = LayerBuilder().load()
