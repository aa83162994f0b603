"""Abstraction layer over devices like GPUs."""

from zeus.device.gpu import get_gpus
from zeus.device.cpu import get_cpus
from zeus.device.soc import get_soc
