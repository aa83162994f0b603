from fastembed.common.types import ImageInput, OnnxProvider, PathInput

__all__ = ["OnnxProvider", "ImageInput", "PathInput"]
