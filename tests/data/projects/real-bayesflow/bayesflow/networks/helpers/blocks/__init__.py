from .dense_block import DenseBlock
from .conditional_dense_block import ConditionalDenseBlock
