from torch_tensorrt._C import EngineCapability, TensorFormat, dtype  # noqa: F401

from tensorrt import DeviceType  # noqa: F401
