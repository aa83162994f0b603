"""Operations module - Pure PyTorch implementation (no CUDA required)."""

from .ms_deform_attn import MSDeformAttn

__all__ = ["MSDeformAttn"]
