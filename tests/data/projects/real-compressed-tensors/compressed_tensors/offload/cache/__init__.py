# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project

# flake8: noqa

from .base import OffloadCache
from .cpu import CPUCache
from .device import DeviceCache
from .disk import DiskCache
from .disk_utils import disk_load_context
from .dist_cpu import DistributedCPUCache
from .dist_device import DistributedDeviceCache
from .dist_disk import DistributedDiskCache
from .utils import catch_cpu_mem_error
