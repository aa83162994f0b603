from .model_zoo import get_model
from .onnxruntime_utils import (
    DEFAULT_PROVIDER_PRIORITY,
    get_default_providers,
    preload_cuda_libraries,
)
from .arcface_onnx import ArcFaceONNX
from .face_verifier import FaceVerifier
from .retinaface import RetinaFace
from .scrfd import SCRFD
from .landmark import Landmark
from .attribute import Attribute
from .package_manifest import (
    DETECTION_TASK,
    EMBEDDED_PREPROCESSING,
    MODEL_PACKAGE_MANIFEST,
    MODEL_PACKAGE_TASKS,
    RECOGNITION_TASK,
    VERIFICATION_TASK,
    ModelArtifact,
    ModelPackage,
    ModelPackageDescriptor,
    ModelTaskDescriptor,
    has_model_package_manifest,
    load_model_package,
    load_package_manifest,
    normalize_preprocessing,
    verify_model_artifact,
)

__all__ = [
    "get_model",
    "DEFAULT_PROVIDER_PRIORITY",
    "get_default_providers",
    "preload_cuda_libraries",
    "ArcFaceONNX",
    "FaceVerifier",
    "RetinaFace",
    "SCRFD",
    "Landmark",
    "Attribute",
    "DETECTION_TASK",
    "EMBEDDED_PREPROCESSING",
    "MODEL_PACKAGE_MANIFEST",
    "MODEL_PACKAGE_TASKS",
    "RECOGNITION_TASK",
    "VERIFICATION_TASK",
    "ModelArtifact",
    "ModelPackage",
    "ModelPackageDescriptor",
    "ModelTaskDescriptor",
    "has_model_package_manifest",
    "load_model_package",
    "load_package_manifest",
    "normalize_preprocessing",
    "verify_model_artifact",
]
