"""Inference utilities for HOCT model."""

from hoct.inference._predict import EdgeModel, ModelPrediction, extract_edge_features, model_predict

__all__ = ["EdgeModel", "ModelPrediction", "extract_edge_features", "model_predict"]
