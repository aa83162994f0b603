from .compute_esm import compute_ESM_embeddings, load_esm_model
from .esm_featurizer import ESMFeaturizer

__all__ = ["compute_ESM_embeddings", "load_esm_model", "ESMFeaturizer"]
