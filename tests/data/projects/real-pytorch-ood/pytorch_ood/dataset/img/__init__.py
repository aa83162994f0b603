"""
Image datasets for OOD detection, anomaly segmentation and object detection.
"""

from .chars74k import Chars74k
from .cifar import CIFAR10C, CIFAR100C
from .fishyscapes import FishyScapes, LostAndFound
from .fooling import FoolingImages
from .goe import CIFAR100GAN
from .imagelist import ImageListDataset
from .imagenet import ImageNetA, ImageNetC, ImageNetO, ImageNetR
from .imagenet200 import ImageNet200
from .imagenet800 import ImageNet800
from .mnistc import MNISTC
from .mvtech import MVTechAD
from .ninco import NINCO
from .noise import GaussianNoise, UniformNoise
from .odin import LSUNCrop, LSUNResize, TinyImageNetCrop, TinyImageNetResize
from .openood import (
    ImageNetES,
    ImageNetV2,
    OpenImagesO,
    Places365,
    SSBHard,
    iNaturalist,
)
from .pixmix import FeatureVisDataset, FractalDataset
from .roadanomaly import RoadAnomaly
from .smiyc import SegmentMeIfYouCan
from .streethazards import StreetHazards
from .sumnist import SuMNIST
from .textures import Textures
from .tinyimagenet import TinyImageNet
from .tinyimages import TinyImages, TinyImages300k

__all__ = [
    "Chars74k",
    "ImageListDataset",
    "CIFAR10C",
    "CIFAR100C",
    "FishyScapes",
    "LostAndFound",
    "FoolingImages",
    "CIFAR100GAN",
    "ImageNetA",
    "ImageNetC",
    "ImageNetO",
    "ImageNetR",
    "ImageNet200",
    "ImageNet800",
    "MNISTC",
    "MVTechAD",
    "NINCO",
    "GaussianNoise",
    "UniformNoise",
    "LSUNCrop",
    "LSUNResize",
    "TinyImageNetCrop",
    "TinyImageNetResize",
    "OpenImagesO",
    "Places365",
    "iNaturalist",
    "ImageNetV2",
    "ImageNetES",
    "SSBHard",
    "RoadAnomaly",
    "SegmentMeIfYouCan",
    "StreetHazards",
    "SuMNIST",
    "Textures",
    "TinyImageNet",
    "TinyImages",
    "TinyImages300k",
    "FeatureVisDataset",
    "FractalDataset",
]
