from .cifar10 import CIFAR10_ODIN
from .cifar100 import CIFAR100_ODIN
from .openmibood import MIDOG_OpenMIBOOD, OASIS3_OpenMIBOOD, PhaKIR_OpenMIBOOD
from .openood import (
    CIFAR10_OpenOOD,
    CIFAR100_OpenOOD,
    ImageNet1K_OpenOOD,
    ImageNet200_OpenOOD,
    ImageNet_OpenOOD,
)
from .ssb import CUB_SSB, Aircraft_SSB, StanfordCars_SSB

__all__ = [
    "Aircraft_SSB",
    "CIFAR10_ODIN",
    "CIFAR10_OpenOOD",
    "CIFAR100_ODIN",
    "CIFAR100_OpenOOD",
    "CUB_SSB",
    "ImageNet_OpenOOD",
    "ImageNet1K_OpenOOD",
    "ImageNet200_OpenOOD",
    "MIDOG_OpenMIBOOD",
    "OASIS3_OpenMIBOOD",
    "PhaKIR_OpenMIBOOD",
    "StanfordCars_SSB",
]
