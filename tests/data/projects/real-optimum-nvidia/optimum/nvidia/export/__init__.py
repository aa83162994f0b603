PATH_FOLDER_CHECKPOINTS = "checkpoints"
PATH_FOLDER_ENGINES = "engines"
PATH_FILE_CHECKPOINTS = "rank*.safetensors"
PATH_FILE_ENGINES = "rank*.engine"

from .workspace import Workspace  # noqa
from .config import ExportConfig, auto_parallel
from .converter import TensorRTArtifact, TensorRTArtifactKind, TensorRTModelConverter
