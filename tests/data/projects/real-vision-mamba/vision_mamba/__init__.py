from vision_mamba.model import Vim

__all__ = ["Vim"]
