# Author: Sergey Polivin <s.polivin@gmail.com>
# License: MIT License

# ruff: noqa: F401

from .device_manager import DeviceManager
from .run_manager import RunManager
