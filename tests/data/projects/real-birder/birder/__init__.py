from birder.common.fs_ops import load_model_with_cfg
from birder.common.fs_ops import load_pretrained_model
from birder.common.fs_ops import load_pretrained_model_and_transform
from birder.common.lib import get_channels_from_signature
from birder.common.lib import get_size_from_signature
from birder.data.transforms.classification import inference_preset as classification_transform
from birder.data.transforms.detection import InferenceTransform as detection_transform
from birder.data.transforms.naflex import inference_preset as naflex_transform
from birder.inference.classification import evaluate as evaluate_classification
from birder.model_registry.model_registry import list_pretrained_models
from birder.version import __version__

__all__ = [
    "classification_transform",
    "detection_transform",
    "evaluate_classification",
    "get_channels_from_signature",
    "get_size_from_signature",
    "list_pretrained_models",
    "load_model_with_cfg",
    "load_pretrained_model",
    "load_pretrained_model_and_transform",
    "naflex_transform",
    "__version__",
]
