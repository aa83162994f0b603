"""N2V manipulation configuration."""

from .n2v_manipulate_config import N2VManipulateConfig, StructMaskConfig

__all__ = ["N2VManipulateConfig", "StructMaskConfig"]
