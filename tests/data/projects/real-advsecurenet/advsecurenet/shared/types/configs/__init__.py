from advsecurenet.shared.types.configs.train_config import TrainConfig
from advsecurenet.shared.types.configs.test_config import TestConfig
from advsecurenet.shared.types.configs.configs import ConfigType

__all__ = ["TrainConfig", "TestConfig", "ConfigType"]
