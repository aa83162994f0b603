from .layers import ScatLayer, ScatLayerj2

__all__ = ["ScatLayer", "ScatLayerj2"]
