from open_moonvit.main import (
    MLPProjector,
    MoonViT,
    MoonViTConfig,
    MoonViTOutput,
    PixelShuffle2x,
    apply_rotary_2d,
)

__all__ = [
    "MLPProjector",
    "MoonViT",
    "MoonViTConfig",
    "MoonViTOutput",
    "PixelShuffle2x",
    "apply_rotary_2d",
]
