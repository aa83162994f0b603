__all__ = ['AutoEmbeddingModel', 'CylinderEmbedding', 'GrayScottEmbedding', 'LorenzEmbedding']

from .embedding_auto import AutoEmbeddingModel
from .embedding_cylinder import CylinderEmbedding
from .embedding_grayscott import GrayScottEmbedding
from .embedding_lorenz import LorenzEmbedding
from .embedding_model import EmbeddingModel, EmbeddingTrainingHead