# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# pyre-strict

from .auto_unit import AutoPredictUnit, AutoUnit
from .callback import Callback
from .evaluate import evaluate
from .fit import fit
from .predict import predict
from .state import ActivePhase, EntryPoint, PhaseState, State
from .train import train
from .unit import EvalUnit, PredictUnit, TEvalUnit, TPredictUnit, TrainUnit, TTrainUnit

__all__ = [
    "AutoPredictUnit",
    "AutoUnit",
    "Callback",
    "evaluate",
    "fit",
    "predict",
    "ActivePhase",
    "EntryPoint",
    "PhaseState",
    "State",
    "train",
    "EvalUnit",
    "PredictUnit",
    "TEvalUnit",
    "TPredictUnit",
    "TrainUnit",
    "TTrainUnit",
]
