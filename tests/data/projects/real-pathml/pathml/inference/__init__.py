"""
Copyright 2023, Dana-Farber Cancer Institute and Weill Cornell Medicine
License: GNU GPL 2.0
"""

from .inference import (
    HaloAIInference,
    Inference,
    InferenceBase,
    RemoteMesmer,
    RemoteTestHoverNet,
    check_onnx_clean,
    convert_pytorch_onnx,
    remove_initializer_from_input,
)
