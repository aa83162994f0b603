# Copyright (c) Facebook, Inc. and its affiliates. All rights reserved.
#
# This source code is licensed under the BSD license found in the
# LICENSE file in the root directory of this source tree.

from typing import List

from .moe_layer import MOELayer
from .top2gate import Top2Gate

__all__: List[str] = []
