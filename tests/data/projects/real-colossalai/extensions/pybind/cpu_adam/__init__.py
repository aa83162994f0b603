from .cpu_adam_arm import CpuAdamArmExtension
from .cpu_adam_x86 import CpuAdamX86Extension

__all__ = ["CpuAdamArmExtension", "CpuAdamX86Extension"]
