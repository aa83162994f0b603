from viscy.transforms._adjust_contrast import (
    BatchedRandAdjustContrast,
    BatchedRandAdjustContrastd,
)
from viscy.transforms._crop import (
    BatchedCenterSpatialCrop,
    BatchedCenterSpatialCropd,
    BatchedRandSpatialCrop,
    BatchedRandSpatialCropd,
)
from viscy.transforms._decollate import Decollate
from viscy.transforms._flip import BatchedRandFlip, BatchedRandFlipd
from viscy.transforms._gaussian_smooth import (
    BatchedRandGaussianSmooth,
    BatchedRandGaussianSmoothd,
)
from viscy.transforms._noise import (
    BatchedRandGaussianNoise,
    BatchedRandGaussianNoised,
    RandGaussianNoiseTensor,
    RandGaussianNoiseTensord,
)
from viscy.transforms._redef import (
    CenterSpatialCropd,
    Decollated,
    NormalizeIntensityd,
    RandAdjustContrastd,
    RandAffined,
    RandFlipd,
    RandGaussianNoised,
    RandGaussianSmoothd,
    RandScaleIntensityd,
    RandSpatialCropd,
    RandWeightedCropd,
    ScaleIntensityRangePercentilesd,
    ToDeviced,
)
from viscy.transforms._scale_intensity import (
    BatchedRandScaleIntensity,
    BatchedRandScaleIntensityd,
)
from viscy.transforms._transforms import (
    BatchedRandAffined,
    BatchedScaleIntensityRangePercentiles,
    BatchedScaleIntensityRangePercentilesd,
    NormalizeSampled,
    RandInvertIntensityd,
    StackChannelsd,
    TiledSpatialCropSamplesd,
)
from viscy.transforms._zoom import BatchedZoom, BatchedZoomd
from viscy.transforms.batched_rand_3d_elasticd import BatchedRand3DElasticd
from viscy.transforms.batched_rand_histogram_shiftd import BatchedRandHistogramShiftd
from viscy.transforms.batched_rand_local_pixel_shufflingd import (
    BatchedRandLocalPixelShufflingd,
)
from viscy.transforms.batched_rand_sharpend import BatchedRandSharpend
from viscy.transforms.batched_rand_zstack_shiftd import BatchedRandZStackShiftd

__all__ = [
    "BatchedCenterSpatialCrop",
    "BatchedCenterSpatialCropd",
    "BatchedRandAdjustContrast",
    "BatchedRandAdjustContrastd",
    "BatchedRandAffined",
    "BatchedRand3DElasticd",
    "BatchedRandFlip",
    "BatchedRandFlipd",
    "BatchedRandGaussianSmooth",
    "BatchedRandGaussianSmoothd",
    "BatchedRandGaussianNoise",
    "BatchedRandGaussianNoised",
    "BatchedRandHistogramShiftd",
    "BatchedRandLocalPixelShufflingd",
    "BatchedRandScaleIntensity",
    "BatchedRandScaleIntensityd",
    "BatchedRandSharpend",
    "BatchedRandSpatialCrop",
    "BatchedRandSpatialCropd",
    "BatchedRandZStackShiftd",
    "BatchedScaleIntensityRangePercentiles",
    "BatchedScaleIntensityRangePercentilesd",
    "BatchedZoom",
    "BatchedZoomd",
    "CenterSpatialCropd",
    "Decollate",
    "Decollated",
    "NormalizeSampled",
    "NormalizeIntensityd",
    "RandAdjustContrastd",
    "RandAffined",
    "RandFlipd",
    "RandGaussianNoised",
    "RandGaussianNoiseTensor",
    "RandGaussianNoiseTensord",
    "RandGaussianSmoothd",
    "RandInvertIntensityd",
    "RandScaleIntensityd",
    "RandSpatialCropd",
    "RandWeightedCropd",
    "ScaleIntensityRangePercentilesd",
    "StackChannelsd",
    "TiledSpatialCropSamplesd",
    "ToDeviced",
]
