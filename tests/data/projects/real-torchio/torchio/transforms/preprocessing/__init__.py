from .intensity.clamp import Clamp
from .intensity.histogram_standardization import HistogramStandardization
from .intensity.mask import Mask
from .intensity.pca import PCA
from .intensity.rescale import RescaleIntensity
from .intensity.to import To
from .intensity.z_normalization import ZNormalization
from .label.contour import Contour
from .label.keep_largest_component import KeepLargestComponent
from .label.one_hot import OneHot
from .label.remap_labels import RemapLabels
from .label.remove_labels import RemoveLabels
from .label.sequential_labels import SequentialLabels
from .spatial.copy_affine import CopyAffine
from .spatial.crop import Crop
from .spatial.crop_or_pad import CropOrPad
from .spatial.ensure_shape_multiple import EnsureShapeMultiple
from .spatial.pad import Pad
from .spatial.resample import Resample
from .spatial.resize import Resize
from .spatial.to_canonical import ToCanonical
from .spatial.to_orientation import ToOrientation
from .spatial.to_reference_space import ToReferenceSpace
from .spatial.transpose import Transpose

__all__ = [
    'Pad',
    'Crop',
    'Resize',
    'Resample',
    'ToCanonical',
    'ToOrientation',
    'ToReferenceSpace',
    'Transpose',
    'CropOrPad',
    'CopyAffine',
    'EnsureShapeMultiple',
    'Mask',
    'PCA',
    'RescaleIntensity',
    'To',
    'Clamp',
    'ZNormalization',
    'HistogramStandardization',
    'OneHot',
    'Contour',
    'RemapLabels',
    'RemoveLabels',
    'SequentialLabels',
    'KeepLargestComponent',
]
