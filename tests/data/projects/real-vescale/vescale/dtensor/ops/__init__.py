################################################################################
# Copyright (c) Meta Platforms, Inc. and affiliates
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
################################################################################
# Modification Copyright 2023 ByteDance Ltd. and/or its affiliates.
################################################################################

from .conv_ops import *  # noqa: F403
from .embedding_ops import *  # noqa: F403
from .experimental_ops import *  # noqa: F403
from .math_ops import *  # noqa: F403
from .matrix_ops import *  # noqa: F403
from .pointwise_ops import *  # noqa: F403
from .random_ops import *  # noqa: F403
from .tensor_ops import *  # noqa: F403
from .vescale_view_ops import *  # noqa: F403
from .view_ops import *  # noqa: F403
