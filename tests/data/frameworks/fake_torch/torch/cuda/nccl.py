"""torch.cuda.nccl.version(), decoding as torch 2.13 does."""

import torch


def version():
    ver = torch._C._nccl_version()
    major = ver >> 32
    minor = (ver >> 16) & 65535
    patch = ver & 65535
    suffix = torch._C._nccl_version_suffix().decode("utf-8")
    if suffix == "":
        return (major, minor, patch)
    return (major, minor, patch, suffix)
