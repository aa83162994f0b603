from .processed_mil_dataset import ProcessedMILDataset as ProcessedMILDataset
from .trident_wsi_dataset import TridentWSIDataset as TridentWSIDataset
from .binary_classification_dataset import (
    BinaryClassificationDataset as BinaryClassificationDataset,
)
from .camelyon16mil_dataset import CAMELYON16MILDataset as CAMELYON16MILDataset
from .pandamil_dataset import PANDAMILDataset as PANDAMILDataset
from .rsnamil_dataset import RSNAMILDataset as RSNAMILDataset
from .tadmil_dataset import TADMILDataset as TADMILDataset

from .toy_dataset import ToyDataset as ToyDataset
from .shifted_mean_mil_dataset import ShiftedMeanMILDataset as ShiftedMeanMILDataset
from .ctscan_dataset import CTScanDataset as CTScanDataset
from .video_classification_dataset import (
    VideoClassificationDataset as VideoClassificationDataset,
)

from .mc_standard_dataset import MCStandardMILDataset as MCStandardMILDataset
from .sc_standard_dataset import SCStandardMILDataset as SCStandardMILDataset
from .false_frequency_dataset import (
    FalseFrequencyMILDataset as FalseFrequencyMILDataset,
)
