from .blocks import DenseBlock, ConditionalDenseBlock
from .embeddings import FourierEmbedding, Time2Vec, RecurrentEmbedding, FiLM
from .sequential import Sequential
from .standardization import Standardization
from .norms import SimpleNorm
