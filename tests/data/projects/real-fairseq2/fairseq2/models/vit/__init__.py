# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.models.vit.feature_extractor import (
    Conv2dPatchFeatureExtractor as Conv2dPatchFeatureExtractor,
)
from fairseq2.models.vit.feature_extractor import (
    Conv3dPatchFeatureExtractor as Conv3dPatchFeatureExtractor,
)
from fairseq2.models.vit.feature_extractor import (
    PatchFeatureExtractor as PatchFeatureExtractor,
)
from fairseq2.models.vit.frontend import StandardViTFrontend as StandardViTFrontend
