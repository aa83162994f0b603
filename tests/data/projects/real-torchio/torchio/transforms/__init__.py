from .augmentation.composition import Compose
from .augmentation.composition import OneOf
from .augmentation.intensity import BiasField
from .augmentation.intensity import Blur
from .augmentation.intensity import Gamma
from .augmentation.intensity import Ghosting
from .augmentation.intensity import LabelsToImage
from .augmentation.intensity import Motion
from .augmentation.intensity import Noise
from .augmentation.intensity import RandomBiasField
from .augmentation.intensity import RandomBlur
from .augmentation.intensity import RandomGamma
from .augmentation.intensity import RandomGhosting
from .augmentation.intensity import RandomLabelsToImage
from .augmentation.intensity import RandomMotion
from .augmentation.intensity import RandomNoise
from .augmentation.intensity import RandomSpike
from .augmentation.intensity import RandomSwap
from .augmentation.intensity import Spike
from .augmentation.intensity import Swap
from .augmentation.spatial import Affine
from .augmentation.spatial import AffineElasticDeformation
from .augmentation.spatial import ElasticDeformation
from .augmentation.spatial import Flip
from .augmentation.spatial import RandomAffine
from .augmentation.spatial import RandomAffineElasticDeformation
from .augmentation.spatial import RandomAnisotropy
from .augmentation.spatial import RandomElasticDeformation
from .augmentation.spatial import RandomFlip
from .fourier import FourierTransform
from .intensity_transform import IntensityTransform
from .lambda_transform import Lambda
from .monai_adapter import MonaiAdapter
from .preprocessing import PCA
from .preprocessing import Clamp
from .preprocessing import Contour
from .preprocessing import CopyAffine
from .preprocessing import Crop
from .preprocessing import CropOrPad
from .preprocessing import EnsureShapeMultiple
from .preprocessing import HistogramStandardization
from .preprocessing import KeepLargestComponent
from .preprocessing import Mask
from .preprocessing import OneHot
from .preprocessing import Pad
from .preprocessing import RemapLabels
from .preprocessing import RemoveLabels
from .preprocessing import Resample
from .preprocessing import RescaleIntensity
from .preprocessing import Resize
from .preprocessing import SequentialLabels
from .preprocessing import To
from .preprocessing import ToCanonical
from .preprocessing import ToOrientation
from .preprocessing import ToReferenceSpace
from .preprocessing import Transpose
from .preprocessing import ZNormalization
from .preprocessing.intensity.histogram_standardization import train_histogram
from .preprocessing.label.label_transform import LabelTransform
from .spatial_transform import SpatialTransform
from .transform import Transform

__all__ = [
    'Transform',
    'FourierTransform',
    'SpatialTransform',
    'IntensityTransform',
    'LabelTransform',
    'Lambda',
    'MonaiAdapter',
    'OneOf',
    'Compose',
    'RandomFlip',
    'Flip',
    'RandomAffine',
    'Affine',
    'RandomAnisotropy',
    'RandomElasticDeformation',
    'ElasticDeformation',
    'RandomAffineElasticDeformation',
    'AffineElasticDeformation',
    'RandomSwap',
    'Swap',
    'RandomBlur',
    'Blur',
    'RandomNoise',
    'Noise',
    'RandomSpike',
    'Spike',
    'RandomGamma',
    'Gamma',
    'RandomMotion',
    'Motion',
    'RandomGhosting',
    'Ghosting',
    'RandomBiasField',
    'BiasField',
    'RandomLabelsToImage',
    'LabelsToImage',
    'Pad',
    'Crop',
    'Resize',
    'Resample',
    'To',
    'ToCanonical',
    'ToOrientation',
    'ToReferenceSpace',
    'Transpose',
    'ZNormalization',
    'HistogramStandardization',
    'RescaleIntensity',
    'PCA',
    'Clamp',
    'Mask',
    'CropOrPad',
    'CopyAffine',
    'EnsureShapeMultiple',
    'train_histogram',
    'OneHot',
    'Contour',
    'RemapLabels',
    'RemoveLabels',
    'SequentialLabels',
    'KeepLargestComponent',
]
