from patchfm.configs.model_config import PatchFMConfig
from patchfm.inference.forecaster import Forecaster
