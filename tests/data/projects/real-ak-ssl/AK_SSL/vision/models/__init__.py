from AK_SSL.vision.models.barlowtwins import BarlowTwins
from AK_SSL.vision.models.byol import BYOL
from AK_SSL.vision.models.dino import DINO
from AK_SSL.vision.models.evaluate import EvaluateNet
from AK_SSL.vision.models.moco import MoCoV2, MoCov3
from AK_SSL.vision.models.simclr import SimCLR
from AK_SSL.vision.models.simsiam import SimSiam
from AK_SSL.vision.models.swav import SwAV

__all__ = [
    "BYOL",
    "DINO",
    "SwAV",
    "SimCLR",
    "MoCoV2",
    "MoCov3",
    "SimSiam",
    "EvaluateNet",
    "BarlowTwins",
]
