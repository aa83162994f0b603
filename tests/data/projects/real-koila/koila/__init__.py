from . import constants, gpus
from .eager import EagerTensor
from .errors import UnsupportedError
from .interfaces import (
    BatchedPair,
    BatchInfo,
    Runnable,
    RunnableTensor,
    TensorMixin,
    run,
)
from .lazy import Evaluation, LazyFunction, LazyTensor, lazy
from .prepasses import CallBack, MetaData, PrePass, PrePassFunc
