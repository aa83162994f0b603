from torch_tensorrt.ts._compile_spec import TensorRTCompileSpec  # noqa: F401
from torch_tensorrt.ts._compiler import *  # noqa: F403
from torch_tensorrt.ts._Device import TorchScriptDevice  # noqa: F401
from torch_tensorrt.ts._enums import *  # noqa: F403
from torch_tensorrt.ts._Input import TorchScriptInput  # noqa: F401
