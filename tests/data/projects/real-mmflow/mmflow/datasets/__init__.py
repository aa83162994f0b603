# Copyright (c) OpenMMLab. All rights reserved.
from .builder import DATASETS, PIPELINES, build_dataloader, build_dataset
from .chairssdhom import ChairsSDHom
from .dataset_wrappers import ConcatDataset, RepeatDataset
from .flyingchairs import FlyingChairs
from .flyingchairsocc import FlyingChairsOcc
from .flyingthings3d import FlyingThings3D
from .flyingthings3d_subset import FlyingThings3DSubset
from .hd1k import HD1K
from .kiiti2012 import KITTI2012
from .kitti2015 import KITTI2015
from .pipelines import (Collect, ColorJitter, Compose, DefaultFormatBundle,
                        Erase, GaussianNoise, ImageToTensor, InputPad,
                        InputResize, LoadImageFromFile, Normalize,
                        PhotoMetricDistortion, RandomAffine, RandomCrop,
                        RandomFlip, RandomRotation, RandomTranslate, Rerange,
                        SpacialTransform, ToDataContainer, ToTensor, Transpose,
                        Validation)
from .samplers import DistributedSampler, MixedBatchDistributedSampler
from .sintel import Sintel
from .utils import (read_flow, read_flow_kitti, render_color_wheel,
                    visualize_flow, write_flow, write_flow_kitti)

__all__ = [
    'DATASETS', 'PIPELINES', 'build_dataloader', 'build_dataset',
    'ConcatDataset', 'RepeatDataset', 'FlyingChairs', 'LoadImageFromFile',
    'ToTensor', 'ImageToTensor', 'Transpose', 'ToDataContainer',
    'DefaultFormatBundle', 'SpacialTransform', 'Validation', 'Erase',
    'Collect', 'RandomFlip', 'Normalize', 'Rerange', 'RandomCrop',
    'ColorJitter', 'PhotoMetricDistortion', 'RandomRotation', 'RandomAffine',
    'MixedBatchDistributedSampler', 'DistributedSampler', 'read_flow',
    'visualize_flow', 'write_flow', 'InputResize', 'write_flow_kitti',
    'read_flow_kitti', 'GaussianNoise', 'RandomTranslate', 'Compose',
    'InputPad', 'FlyingThings3DSubset', 'FlyingThings3D', 'Sintel',
    'KITTI2012', 'KITTI2015', 'ChairsSDHom', 'HD1K', 'FlyingChairsOcc',
    'render_color_wheel'
]
