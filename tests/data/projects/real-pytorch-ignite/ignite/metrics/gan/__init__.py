from ignite.metrics.gan.fid import FID
from ignite.metrics.gan.inception_score import InceptionScore

__all__ = [
    "InceptionScore",
    "FID",
]
