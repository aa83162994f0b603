from .flow_visualization import FlowVisualizer
from .visualization import WeatherVisualizer
from .evaluation import WeatherMetrics, WeatherEvaluator
from .skewt import SkewTImageParser, SkewT3DVisualizer, SkewTCalibration, RGBThreshold
from .cloud_rendering import (
    AdaptiveCloudLod,
    CameraModel,
    DualCameraPipeline,
    LightingModel,
    RayMarchSettings,
    TemporalReprojectionState,
    VerticalCrossSectionRenderer,
    VolumetricCloudRenderer,
)

__all__ = [
    'FlowVisualizer',
    'WeatherVisualizer',
    'WeatherMetrics',
    'WeatherEvaluator',
    'SkewTImageParser',
    'SkewT3DVisualizer',
    'SkewTCalibration',
    'RGBThreshold',
    'RayMarchSettings',
    'CameraModel',
    'LightingModel',
    'TemporalReprojectionState',
    'VolumetricCloudRenderer',
    'AdaptiveCloudLod',
    'DualCameraPipeline',
    'VerticalCrossSectionRenderer',
]
