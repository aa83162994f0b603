# Impeller/__init__.py

from .config import create_args
from .data import download_example_data, load_example_data, load_and_process_example_data, process_inference_data
from .model import Impeller
from .train import train, inference
from .utils import evaluate_Impeller, get_paths
from .baseline import SpatialKNNImputer