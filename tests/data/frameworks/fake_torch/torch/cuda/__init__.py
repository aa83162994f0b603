"""torch.cuda: the availability and arch-list logic of torch 2.13, over the fake torch._C."""

import torch
from torch.cuda import nccl


class _DeviceProperties:
    def __init__(self, record):
        self.name = record["name"]
        self.major = record["major"]
        self.minor = record["minor"]
        self.total_memory = record["total_memory"]
        if "gcnArchName" in record:
            self.gcnArchName = record["gcnArchName"]


def _is_compiled():
    return bool(torch.version.cuda or torch.version.hip)


def is_available():
    if not _is_compiled():
        return False
    return torch._C._cuda_getDeviceCount() > 0


def device_count():
    return torch._C._cuda_getDeviceCount() if _is_compiled() else 0


def get_arch_list():
    if not _is_compiled():
        return []
    arch_flags = torch._C._cuda_getArchFlags()
    if arch_flags is None:
        return []
    return arch_flags.split()


def get_device_properties(index):
    if not _is_compiled():
        raise AssertionError("Torch not compiled with CUDA enabled")
    return _DeviceProperties(torch._C._DEVICES[index])


__all__ = ["device_count", "get_arch_list", "get_device_properties", "is_available", "nccl"]
