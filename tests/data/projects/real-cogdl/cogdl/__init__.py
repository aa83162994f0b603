__version__ = "0.6"

from .experiments import experiment
from .pipelines import pipeline
