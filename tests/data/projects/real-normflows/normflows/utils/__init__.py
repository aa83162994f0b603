from . import (
    eval,
    masks,
    nn,
    optim,
    preprocessing,
    splines,
)

from .eval import bitsPerDim, bitsPerDimDataset

from .nn import ActNorm, ClampExp, ConstScaleLayer, tile, sum_except_batch

from .optim import clear_grad, set_requires_grad, update_lipschitz

from .preprocessing import Logit, Jitter, Scale
