import os
# Ignore Tensorflow INFO Messeage
os.environ['TF_CPP_MIN_LOG_LEVEL'] = '1' 

# Data Modules
from . import datalibs
from .datalibs import DataLoader

# Model Modules
from . import automl
from .automl import AutoML