from reflectorch.data_generation import *
from reflectorch.ml import *
from reflectorch.models import *
from reflectorch.utils import *
from reflectorch.paths import *
from reflectorch.runs import *
from reflectorch.inference import *

from reflectorch.data_generation import __all__ as all_data_generation
from reflectorch.ml import __all__ as all_ml
from reflectorch.models import __all__ as all_models
from reflectorch.utils import __all__ as all_utils
from reflectorch.paths import __all__ as all_paths
from reflectorch.runs import __all__ as all_runs
from reflectorch.inference import __all__ as all_inference

__all__ = all_data_generation + all_ml + all_models + all_utils + all_paths + all_runs + all_inference
