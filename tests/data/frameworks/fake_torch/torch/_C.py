"""The few torch._C entry points the probe reaches, answering from the recorded build."""

import torch

_DEVICES = torch.BUILD.get("devices", [])


def _cuda_getArchFlags():
    return torch.BUILD.get("arch_flags")


def _cuda_getDeviceCount():
    return len(_DEVICES)


if "nccl" in torch.BUILD:

    def _nccl_version():
        major, minor, patch = torch.BUILD["nccl"]
        return (major << 32) | (minor << 16) | patch

    def _nccl_version_suffix():
        return b""
