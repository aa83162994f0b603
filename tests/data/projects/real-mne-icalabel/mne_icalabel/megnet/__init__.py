from . import features, label_components
from .features import get_megnet_features
from .label_components import megnet_label_components
