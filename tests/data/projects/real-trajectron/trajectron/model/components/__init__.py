from .discrete_latent import DiscreteLatent
from .gmm2d import GMM2D
from .map_encoder import CNNMapEncoder
from .additive_attention import AdditiveAttention, TemporallyBatchedAdditiveAttention
