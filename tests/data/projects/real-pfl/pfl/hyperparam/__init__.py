# Copyright © 2023-2024 Apple Inc.

from .base import (
    AlgorithmHyperParams,
    HyperParam,
    HyperParamClsOrBool,
    HyperParamClsOrFloat,
    HyperParamClsOrInt,
    HyperParams,
    ModelHyperParams,
    NNEvalHyperParams,
    NNTrainHyperParams,
    get_param_value,
)
