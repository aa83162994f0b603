from .isolated import (
    AUTSLDataset,
    CSLDataset,
    DeviSignDataset,
    GSLDataset,
    INCLUDEDataset,
    WLASLDataset,
)
from .pose_transforms import (
    Compose,
    ScaleToVideoDimensions,
    ScaleTransform,
    ShearTransform,
    PoseRandomShift,
    PoseSelect,
    PoseTemporalSubsample,
    PoseUniformSubsampling,
    RandomMove,
    RotatationTransform,
    CenterAndScaleNormalize,
    TemporalSample,
    FrameSkipping,
    AddClsToken,
)
from .video_transforms import (
    Compose,
    TCHW2CTHW,
    THWC2CTHW,
    THWC2TCHW,
    NumpyToTensor,
    Albumentations2DTo3D,
    RandomTemporalSubsample,
    PackSlowFastPathway,
)
from .pipelines import GeneratePoseHeatMap, ExtractHandCrops
