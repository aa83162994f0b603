from .tools import (
    spawn_wav2mel,
)
from .models_infer import (
    spawn_model,
    spawn_infer_model_from_pt,
    spawn_infer_model_from_onnx,
    spawn_bundled_infer_model,
    bundled_infer_model_unit_test
)
