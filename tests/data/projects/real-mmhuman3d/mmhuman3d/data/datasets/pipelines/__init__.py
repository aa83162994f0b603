from .compose import Compose
from .formatting import (
    Collect,
    ImageToTensor,
    ToNumpy,
    ToPIL,
    ToTensor,
    Transpose,
    to_tensor,
)
from .hybrik_transforms import (
    GenerateHybrIKTarget,
    HybrIKAffine,
    HybrIKRandomFlip,
    NewKeypointsSelection,
    RandomDPG,
    RandomOcclusion,
)
from .loading import LoadImageFromFile
from .synthetic_occlusion_augmentation import SyntheticOcclusion
from .transforms import (
    BBoxCenterJitter,
    CenterCrop,
    ColorJitter,
    GetBboxInfo,
    GetRandomScaleRotation,
    Lighting,
    MeshAffine,
    Normalize,
    RandomChannelNoise,
    RandomHorizontalFlip,
    Rotation,
    SimulateLowRes,
)

__all__ = [
    'Compose', 'to_tensor', 'ToTensor', 'ImageToTensor', 'ToPIL', 'ToNumpy',
    'Transpose', 'Collect', 'LoadImageFromFile', 'CenterCrop',
    'RandomHorizontalFlip', 'ColorJitter', 'Lighting', 'RandomChannelNoise',
    'GetRandomScaleRotation', 'MeshAffine', 'HybrIKRandomFlip', 'HybrIKAffine',
    'GenerateHybrIKTarget', 'RandomDPG', 'RandomOcclusion', 'Rotation',
    'NewKeypointsSelection', 'Normalize', 'SyntheticOcclusion',
    'BBoxCenterJitter', 'SimulateLowRes', 'GetBboxInfo'
]
