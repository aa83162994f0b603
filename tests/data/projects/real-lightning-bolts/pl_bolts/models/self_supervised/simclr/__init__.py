from pl_bolts.transforms.self_supervised.simclr_transforms import (  # noqa: F401
    SimCLREvalDataTransform,
    SimCLRTrainDataTransform,
)
