# Copyright (c) Facebook, Inc. and its affiliates. All rights reserved.
#
# This source code is licensed under the BSD license found in the
# LICENSE file in the root directory of this source tree.

from typing import List

from .checkpoint_activations import checkpoint_wrapper, is_checkpointing, is_recomputing

__all__: List[str] = []
