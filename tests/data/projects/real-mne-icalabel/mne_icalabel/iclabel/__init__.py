from . import features, label_components, network
from .features import get_iclabel_features
from .label_components import iclabel_label_components
from .network import run_iclabel
