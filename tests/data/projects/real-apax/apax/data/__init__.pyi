from .data import input_pipeline, preprocessing, statistics

__all__ = ["input_pipeline", "preprocessing", "statistics"]
