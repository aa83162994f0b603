from . import (
    als,
    basic,
    batch,
    config,
    data,
    flexmf,
    funksvd,
    hpf,
    knn,
    logging,
    metrics,
    operations,
    pipeline,
    sklearn,
    splitting,
    stats,
    torch,
    training,
)
from .config import configure, lenskit_config
from .data import Dataset, DatasetBuilder
from .operations import predict, recommend, score
from .pipeline import Component, Pipeline, RecPipelineBuilder, topn_pipeline
from .splitting import TTSplit

__all__ = [
    # modules
    "batch",
    "config",
    "data",
    "logging",
    "metrics",
    "pipeline",
    "operations",
    "splitting",
    "stats",
    "torch",
    "training",
    # component modules
    "als",
    "basic",
    "flexmf",
    "funksvd",
    "hpf",
    "knn",
    "sklearn",
    # setup
    "configure",
    "lenskit_config",
    # operations
    "predict",
    "recommend",
    "score",
    # pipeline
    "Pipeline",
    "Component",
    "RecPipelineBuilder",
    "topn_pipeline",
    # data
    "Dataset",
    "DatasetBuilder",
    # splitting
    "TTSplit",
]

__version__: str
