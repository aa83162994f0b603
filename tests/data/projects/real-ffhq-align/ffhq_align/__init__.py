from ffhq_align.__version__ import __version__
from ffhq_align.module import Aligner, LandmarkFA
from ffhq_align.ops import image_align, quad_transform

__all__ = ["Aligner", "LandmarkFA", "image_align", "quad_transform"]
