# yapf: disable
from .builder import (  # noqa: F401
    DepthShader,
    HardFlatShader,
    HardGouraudShader,
    HardPhongShader,
    NoLightShader,
    NormalShader,
    SegmentationShader,
    SilhouetteShader,
    SoftGouraudShader,
    SoftPhongShader,
    build_shader,
)

# yapf: enable
