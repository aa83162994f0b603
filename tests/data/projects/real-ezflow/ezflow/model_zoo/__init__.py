from .model_zoo import _ModelZooConfigs
