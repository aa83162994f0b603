from model2vec.inference.evaluation import evaluate_single_or_multi_label
from model2vec.inference.model import StaticModelPipeline, convert_legacy_pipeline

__all__ = ["StaticModelPipeline", "convert_legacy_pipeline", "evaluate_single_or_multi_label"]
