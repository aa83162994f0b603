from .build_dataset import *
from .feature_processor import *