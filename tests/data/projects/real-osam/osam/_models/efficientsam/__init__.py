from ._models import EfficientSam10m  # noqa: F401
from ._models import EfficientSam30m  # noqa: F401
