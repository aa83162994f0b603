from .fourier_embedding import FourierEmbedding
from .time2vec import Time2Vec
from .recurrent_embedding import RecurrentEmbedding
from .featurewise_linear_modulation import FiLM
