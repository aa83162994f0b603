"""A jax on a host without a usable GPU: the CUDA plugin is installed, the backend is cpu."""

__version__ = "0.4.35"


class CpuDevice:
    platform = "cpu"
    device_kind = "cpu"

    def __init__(self, index):
        self.id = index


def default_backend():
    return "cpu"


def devices():
    return [CpuDevice(0)]
