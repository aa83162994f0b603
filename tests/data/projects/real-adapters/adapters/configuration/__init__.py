# flake8: noqa
from .adapter_config import *
from .adapter_fusion_config import *
from .model_adapters_config import ModelAdaptersConfig, build_full_config
