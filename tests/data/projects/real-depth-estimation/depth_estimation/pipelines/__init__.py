from .depth_estimation import DepthEstimationPipeline

__all__ = ["DepthEstimationPipeline"]
