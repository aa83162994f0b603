#
# Copyright (C) 2023 - 2026 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#
import os

import torch
from torch.distributed import device_mesh

from quark.common.utils.log import ScreenLogger

logger = ScreenLogger(__name__)

"""
Reserved code
from torch.distributed._tensor import distribute_tensor, Replicate, DTensor
"""


def get_gpu_arch() -> str:
    """Return the ROCm gfx architecture of device 0, or "" if there is no GPU."""
    if not torch.cuda.is_available():
        return ""
    return str(torch.cuda.get_device_properties(0).gcnArchName).split(":", 1)[0]


def is_gfx950() -> bool:
    """True if device 0 is gfx950 (MI350), the target of the A8W4 / MXFP4 kernels."""
    return get_gpu_arch() == "gfx950"


def e4m3fn_to_e4m3fnuz(tensor: torch.Tensor, tensor_scale: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    scale = 2.0

    if tensor is not None and torch.version.hip is not None:
        if tensor.dtype is not torch.float16:
            assert tensor.dtype == torch.float8_e4m3fn
            tensor = tensor.to(torch.float16)

        tensor = (tensor / scale).clamp(-224.0, 224.0).to(torch.float8_e4m3fnuz)

        tensor_scale = tensor_scale * 2.0

    return tensor, tensor_scale


class TPDeviceManager:
    _tp_mesh = None
    _device = None
    _rank = None

    @property
    def tp_mesh(self) -> device_mesh.DeviceMesh | None:
        """Getter for the name attribute."""
        return TPDeviceManager._tp_mesh

    @tp_mesh.setter
    def tp_mesh(self, mesh: device_mesh.DeviceMesh) -> None:
        """Setter for the name attribute with validation."""
        if not isinstance(mesh, device_mesh.DeviceMesh):
            raise TypeError("Name must be a device_mesh.")
        TPDeviceManager._tp_mesh = mesh

    @property
    def device(self) -> torch.device | None:
        """Getter for the name attribute."""
        return TPDeviceManager._device

    @device.setter
    def device(self, device: torch.device) -> None:
        """Setter for the name attribute with validation."""
        if not isinstance(device, torch.device):
            raise TypeError("Name must be a device_mesh.")
        TPDeviceManager._device = device

    @staticmethod
    def tp_mesh_init() -> None:
        if TPDeviceManager._tp_mesh is None:
            if os.environ["RANK"] is not None and os.environ["WORLD_SIZE"] is not None:
                rank = int(os.environ["RANK"])
                device = torch.device(f"cuda:{rank}")
                num_gpus = int(os.environ["WORLD_SIZE"])
                torch.cuda.set_device(device)

                if not torch.distributed.is_initialized():
                    torch.distributed.init_process_group("nccl")

                TPDeviceManager._rank = rank
                TPDeviceManager._device = device
                TPDeviceManager._tp_mesh = device_mesh.init_device_mesh("cuda", (num_gpus,), mesh_dim_names=("tp",))
            else:
                logger.warning("tp environment settings not found!")

    @staticmethod
    def tp_cleanup() -> None:
        if torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()
