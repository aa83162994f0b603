from pytorch_pfn_extras.nn.parallel.distributed import (  # NOQA
    DistributedDataParallel,
)
