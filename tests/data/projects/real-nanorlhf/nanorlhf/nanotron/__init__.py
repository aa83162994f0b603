from nanorlhf.nanotron.api import TensorParallel, PipelineParallel, DataParallel
from nanorlhf.nanotron.distributed.mpu import MPU, ParallelMode
