from .predict import (
    normalize_prediction,
    predict_data_with_feats,
    predict_from_embedding,
    predict_tf_feat,
)

__all__ = [
    "predict_data_with_feats",
    "predict_from_embedding",
    "predict_tf_feat",
    "normalize_prediction",
]
