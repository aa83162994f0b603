from pydantic.dataclasses import dataclass

from ..base import BaseSamplerConfig


@dataclass
class HypersphereUniformSamplerConfig(BaseSamplerConfig):
    """HypershpereUniformSampler config class.

    N/A
    """

    pass
