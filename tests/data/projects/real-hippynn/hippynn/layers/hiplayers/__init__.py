from .sensitivity import SensitivityBottleneck, InverseSensitivityModule, GaussianSensitivityModule, CosCutoff
from .tensors import TensorExtractor
from .interactions import InteractLayer, InteractLayerVec, InteractLayerQuad, HOPInteractionLayer
