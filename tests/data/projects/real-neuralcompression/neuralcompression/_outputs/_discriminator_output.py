# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from typing import NamedTuple, Optional

from torch import Tensor


class DiscriminatorOutput(NamedTuple):
    logits: Tensor
    target: Optional[Tensor] = None
