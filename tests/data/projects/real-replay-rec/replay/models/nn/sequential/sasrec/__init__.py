from .dataset import (
    SasRecPredictionBatch,
    SasRecPredictionDataset,
    SasRecTrainingBatch,
    SasRecTrainingDataset,
    SasRecValidationBatch,
    SasRecValidationDataset,
)
from .lightning import SasRec
from .model import SasRecModel
