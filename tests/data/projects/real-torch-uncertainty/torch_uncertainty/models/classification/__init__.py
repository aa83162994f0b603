# ruff: noqa: F401
from .inception_time import (
    batched_inception_time,
    bayesian_inception_time,
    inception_time,
    mimo_inception_time,
    packed_inception_time,
)
from .lenet import batchensemble_lenet, bayesian_lenet, lenet, packed_lenet
from .resnet import batched_resnet, lpbnn_resnet, masked_resnet, mimo_resnet, packed_resnet, resnet
from .vgg import packed_vgg, vgg
from .wideresnet import (
    batched_wideresnet28x10,
    masked_wideresnet28x10,
    mimo_wideresnet28x10,
    packed_wideresnet28x10,
    wideresnet28x10,
)
