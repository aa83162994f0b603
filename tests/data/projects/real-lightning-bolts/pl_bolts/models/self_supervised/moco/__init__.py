from pl_bolts.transforms.self_supervised.moco_transforms import (  # noqa: F401
    MoCo2EvalCIFAR10Transforms,
    MoCo2EvalImagenetTransforms,
    MoCo2EvalSTL10Transforms,
    MoCo2TrainCIFAR10Transforms,
    MoCo2TrainImagenetTransforms,
    MoCo2TrainSTL10Transforms,
)
