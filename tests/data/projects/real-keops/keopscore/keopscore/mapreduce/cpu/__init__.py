from .CpuReduc_ranges import CpuReduc_ranges
from .CpuReduc import CpuReduc
from .CpuAssignZero import CpuAssignZero
