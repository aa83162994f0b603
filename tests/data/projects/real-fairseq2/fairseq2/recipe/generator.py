# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.generator import Generator as Generator  # noqa: F401
from fairseq2.generator import GeneratorUnit as GeneratorUnit  # noqa: F401
