from birder.net.mim.aim_v1 import AIM_v1
from birder.net.mim.crossmae import CrossMAE
from birder.net.mim.eva import EVA
from birder.net.mim.fcmae import FCMAE
from birder.net.mim.mae_hiera import MAE_Hiera
from birder.net.mim.mae_vit import MAE_ViT
from birder.net.mim.maskfeat import MaskFeat
from birder.net.mim.simmim import SimMIM

__all__ = [
    "AIM_v1",
    "CrossMAE",
    "EVA",
    "FCMAE",
    "MAE_Hiera",
    "MAE_ViT",
    "MaskFeat",
    "SimMIM",
]
