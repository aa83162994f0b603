# Copyright (c) OpenMMLab. All rights reserved.
from .beit_vit import BEiTViT
from .cae_vit import CAEViT
from .mae_vit import MAEViT
from .maskfeat_vit import MaskFeatViT
from .milan_vit import MILANViT
from .mixmim_backbone import MixMIMTransformerPretrain
from .mocov3_vit import MoCoV3ViT
from .resnet import ResNet, ResNetSobel, ResNetV1d
from .resnext import ResNeXt
from .simmim_swin import SimMIMSwinTransformer

__all__ = [
    'ResNet', 'ResNetSobel', 'ResNetV1d', 'ResNeXt', 'MAEViT', 'MoCoV3ViT',
    'SimMIMSwinTransformer', 'CAEViT', 'MaskFeatViT', 'BEiTViT', 'MILANViT',
    'MixMIMTransformerPretrain'
]
