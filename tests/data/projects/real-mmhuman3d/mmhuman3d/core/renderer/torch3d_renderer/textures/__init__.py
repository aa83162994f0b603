# yapf: disable
from .builder import (  # noqa:F401
    TexturesAtlas,
    TexturesNearest,
    TexturesUV,
    TexturesVertex,
    build_textures,
)

# yapf: enable
