from .dataset_factory import create_dataset
from .dataset import DetectionDatset, SkipSubset
from .input_config import resolve_input_config
from .loader import create_loader
from .parsers import create_parser
from .transforms import *
