from pathlib import Path

from bindsnet import (
    analysis,
    conversion,
    datasets,
    encoding,
    environment,
    evaluation,
    learning,
    models,
    network,
    pipeline,
    preprocessing,
    utils,
)

ROOT_DIR = Path(__file__).parents[0].parents[0]

__all__ = [
    "utils",
    "network",
    "models",
    "analysis",
    "preprocessing",
    "datasets",
    "encoding",
    "pipeline",
    "learning",
    "evaluation",
    "environment",
    "conversion",
    "ROOT_DIR",
]
