from . import constants, helper
from .infer_datapipe import InferDatapipe
from .metadata import Metadata
from .train_datapipe import TrainDatapipe

__all__ = ["constants", "helper", "Metadata", "InferDatapipe", "TrainDatapipe"]
