from pydantic.dataclasses import dataclass

from pythae.config import BaseConfig


@dataclass
class BaseSamplerConfig(BaseConfig):
    """
    BaseSampler config class.
    """

    pass
