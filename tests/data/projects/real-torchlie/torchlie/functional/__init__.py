# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.
from .check_contexts import enable_checks
from .se3_impl import _fns as SE3
from .so3_impl import _fns as SO3
