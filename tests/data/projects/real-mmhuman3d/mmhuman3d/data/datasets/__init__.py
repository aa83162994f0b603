from .adversarial_dataset import AdversarialDataset
from .base_dataset import BaseDataset
from .builder import DATASETS, PIPELINES, build_dataloader, build_dataset
from .dataset_wrappers import ConcatDataset, RepeatDataset
from .human_hybrik_dataset import HybrIKHumanImageDataset
from .human_image_dataset import HumanImageDataset
from .human_image_smplx_dataset import HumanImageSMPLXDataset
from .human_pymafx_dataset import PyMAFXHumanImageDataset
from .human_video_dataset import HumanVideoDataset
from .mesh_dataset import MeshDataset
from .mixed_dataset import MixedDataset
from .pipelines import Compose
from .samplers import DistributedSampler

__all__ = [
    'BaseDataset', 'HumanImageDataset', 'HumanImageSMPLXDataset',
    'build_dataloader', 'build_dataset', 'Compose', 'DistributedSampler',
    'ConcatDataset', 'RepeatDataset', 'DATASETS', 'PIPELINES', 'MixedDataset',
    'AdversarialDataset', 'MeshDataset', 'HumanVideoDataset',
    'HybrIKHumanImageDataset', 'PyMAFXHumanImageDataset'
]
