# Local application
from .metrics import *
from .utils import MetricsMetaInfo, METRICS_REGISTRY
