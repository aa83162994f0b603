from joetorch.nn.modules.fully_connected import MLP
from joetorch.nn.modules.convolutional import EncBlock, DecBlock, ConvResidualBlock, ConvSelfAttentionBlock, ConvCrossAttentionBlock
from joetorch.nn.modules.attention import SelfAttention, CrossAttention

__all__ = ['MLP', 'EncBlock', 'DecBlock', 'ConvResidualBlock', 'ConvSelfAttentionBlock', 'ConvCrossAttentionBlock', 'SelfAttention', 'CrossAttention']
