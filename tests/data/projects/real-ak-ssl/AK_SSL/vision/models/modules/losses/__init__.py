from AK_SSL.vision.models.modules.losses.barlow_twins_loss import \
    BarlowTwinsLoss
from AK_SSL.vision.models.modules.losses.byol_loss import BYOLLoss
from AK_SSL.vision.models.modules.losses.dino_loss import DINOLoss
from AK_SSL.vision.models.modules.losses.info_nce import InfoNCE_MoCoV3
from AK_SSL.vision.models.modules.losses.negative_cosine_similarity import \
    NegativeCosineSimilarity
from AK_SSL.vision.models.modules.losses.nt_xent import NT_Xent
from AK_SSL.vision.models.modules.losses.swav_loss import SwAVLoss

__all__ = [
    "NT_Xent",
    "BYOLLoss",
    "DINOLoss",
    "SwAVLoss",
    "InfoNCE_MoCoV3",
    "BarlowTwinsLoss",
    "NegativeCosineSimilarity",
]
