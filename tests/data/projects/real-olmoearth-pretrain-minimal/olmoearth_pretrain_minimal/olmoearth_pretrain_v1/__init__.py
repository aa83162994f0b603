"""OlmoEarth Pretrain v1 model package."""

from olmoearth_pretrain_minimal.olmoearth_pretrain_v1.olmoearth_pretrain_v1 import (
    OlmoEarthPretrain_v1,
)

__all__ = ["OlmoEarthPretrain_v1"]
