from sb3_contrib.common.envs.invalid_actions_env import (
    InvalidActionEnvDiscrete,
    InvalidActionEnvMultiBinary,
    InvalidActionEnvMultiDiscrete,
)

__all__ = ["InvalidActionEnvDiscrete", "InvalidActionEnvMultiBinary", "InvalidActionEnvMultiDiscrete"]
