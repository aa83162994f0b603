# Copyright (c) OpenMMLab. All rights reserved.
from .formatting import (FormatAudioShape, FormatGCNInput, FormatShape,
                         PackActionInputs, PackLocalizationInputs, Transpose)
from .loading import (ArrayDecode, AudioFeatureSelector, BuildPseudoClip,
                      DecordDecode, DecordInit, DenseSampleFrames,
                      GenerateLocalizationLabels, ImageDecode,
                      LoadAudioFeature, LoadHVULabel, LoadLocalizationFeature,
                      LoadProposals, LoadRGBFromFile, OpenCVDecode, OpenCVInit,
                      PIMSDecode, PIMSInit, PyAVDecode, PyAVDecodeMotionVector,
                      PyAVInit, RawFrameDecode, SampleAVAFrames, SampleFrames,
                      UniformSample, UntrimmedSampleFrames)
from .pose_transforms import (DecompressPose, GeneratePoseTarget, GenSkeFeat,
                              JointToBone, MergeSkeFeat, MMCompact, MMDecode,
                              MMUniformSampleFrames, PadTo, PoseCompact,
                              PoseDecode, PreNormalize2D, PreNormalize3D,
                              ToMotion, UniformSampleFrames)
from .processing import (CenterCrop, ColorJitter, Flip, Fuse, MultiScaleCrop,
                         RandomCrop, RandomRescale, RandomResizedCrop, Resize,
                         TenCrop, ThreeCrop)
from .text_transforms import CLIPTokenize
from .wrappers import ImgAug, PytorchVideoWrapper, TorchVisionWrapper

__all__ = [
    'ArrayDecode', 'AudioFeatureSelector', 'BuildPseudoClip', 'CenterCrop',
    'ColorJitter', 'DecordDecode', 'DecordInit', 'DecordInit',
    'DenseSampleFrames', 'Flip', 'FormatAudioShape', 'FormatGCNInput',
    'FormatShape', 'Fuse', 'GenSkeFeat', 'GenerateLocalizationLabels',
    'GeneratePoseTarget', 'ImageDecode', 'ImgAug', 'JointToBone',
    'LoadAudioFeature', 'LoadHVULabel', 'DecompressPose',
    'LoadLocalizationFeature', 'LoadProposals', 'LoadRGBFromFile',
    'MergeSkeFeat', 'MultiScaleCrop', 'OpenCVDecode', 'OpenCVInit',
    'OpenCVInit', 'PIMSDecode', 'PIMSInit', 'PackActionInputs',
    'PackLocalizationInputs', 'PadTo', 'PoseCompact', 'PoseDecode',
    'PreNormalize2D', 'PreNormalize3D', 'PyAVDecode', 'PyAVDecodeMotionVector',
    'PyAVInit', 'PyAVInit', 'PytorchVideoWrapper', 'RandomCrop',
    'RandomRescale', 'RandomResizedCrop', 'RawFrameDecode', 'Resize',
    'SampleAVAFrames', 'SampleFrames', 'TenCrop', 'ThreeCrop', 'ToMotion',
    'TorchVisionWrapper', 'Transpose', 'UniformSample', 'UniformSampleFrames',
    'UntrimmedSampleFrames', 'MMUniformSampleFrames', 'MMDecode', 'MMCompact',
    'CLIPTokenize'
]
