from .CustomKernel import CustomKernel
from .CustomKernel import Stream

from .default_device import get_default_device, set_default_device

from .GetAddressByIDCuda import GetAddressByIDCuda
from .GetDivByAddressCuda import GetDivByAddressCuda
from .GetDivByAddressV2Cuda import GetDivByAddressV2Cuda
from .GetIOACuda import GetIOACuda
from .GetWriteAddressCuda import GetWriteAddressCuda
from .GetWriteAddressV2Cuda import GetWriteAddressV2Cuda
from .PQDecodeCuda import PQDecodeCuda
from .ComputeCentroidsCuda import ComputeCentroidsCuda
from .ComputeProductCuda import ComputeProductCuda
from .MaxSimCuda import MaxSimCuda

from .BMMCuda import BMMCuda
from .MinBMMCuda import MinBMMCuda
from .TopkBMMCuda import TopkBMMCuda

from .IVFPQTopkCuda import IVFPQTopkCuda
from .IVFPQTop1Cuda import IVFPQTop1Cuda
from .DistributedIVFPQTopkCuda import DistributedIVFPQTopkCuda
from .DistributedIVFPQTop1Cuda import DistributedIVFPQTop1Cuda
from .TopkSelectCuda import TopkSelectCuda
from .Top32SelectCuda import Top32SelectCuda
from .Top1SelectCuda import Top1SelectCuda