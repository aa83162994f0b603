# yapf: disable
from .builder import (  # noqa: F401
    AmbientLights,
    DirectionalLights,
    PointLights,
    build_lights,
)
from .lights import MMLights  # noqa: F401

# yapf: enable
