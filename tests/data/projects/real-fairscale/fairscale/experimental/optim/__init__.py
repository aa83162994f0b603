# Copyright (c) Facebook, Inc. and its affiliates.
#
# This source code is licensed under the BSD license found in the
# LICENSE file in the root directory of this source tree.

from typing import List

from .dynamic_loss_scaler import DynamicLossScaler

__all__: List[str] = []
