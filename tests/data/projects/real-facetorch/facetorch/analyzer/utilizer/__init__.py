from .align import Lmk3DMeshPose
from .draw import BoxDrawer, LandmarkDrawerTorch
from .save import ImageSaver


__all__ = ["Lmk3DMeshPose", "BoxDrawer", "LandmarkDrawerTorch", "ImageSaver"]
