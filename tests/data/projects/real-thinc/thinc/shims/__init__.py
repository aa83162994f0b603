from .mxnet import MXNetShim
from .pytorch import PyTorchShim
from .pytorch_grad_scaler import PyTorchGradScaler
from .shim import Shim
from .tensorflow import TensorFlowShim, keras_model_fns, maybe_handshake_model
from .torchscript import TorchScriptShim

# fmt: off
__all__ = [
    "MXNetShim",
    "PyTorchShim",
    "PyTorchGradScaler",
    "Shim",
    "TensorFlowShim",
    "TorchScriptShim",
    "maybe_handshake_model",
    "keras_model_fns",
]
# fmt: on
