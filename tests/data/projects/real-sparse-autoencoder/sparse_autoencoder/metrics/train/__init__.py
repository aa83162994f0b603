"""Train step metrics."""
from sparse_autoencoder.metrics.train.abstract_train_metric import AbstractTrainMetric


__all__ = ["AbstractTrainMetric"]
