from .GpuAssignZero import GpuAssignZero
from .GpuReduc1D import GpuReduc1D
from .GpuReduc1D_chunks import GpuReduc1D_chunks
from .GpuReduc1D_finalchunks import GpuReduc1D_finalchunks
from .GpuReduc1D_ranges import GpuReduc1D_ranges
from .GpuReduc1D_ranges_chunks import GpuReduc1D_ranges_chunks
from .GpuReduc1D_ranges_finalchunks import (
    GpuReduc1D_ranges_finalchunks,
)
from .GpuReduc2D import GpuReduc2D
