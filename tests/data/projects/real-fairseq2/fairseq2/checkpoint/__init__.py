# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from pathlib import Path
from typing import final

from fairseq2.checkpoint.hg import NOOP_HG_EXPORTER as NOOP_HG_EXPORTER
from fairseq2.checkpoint.hg import (
    HuggingFaceExportCallbackArgs as HuggingFaceExportCallbackArgs,
)
from fairseq2.checkpoint.hg import HuggingFaceExporter as HuggingFaceExporter
from fairseq2.checkpoint.hg import HuggingFaceExportOptions as HuggingFaceExportOptions
from fairseq2.checkpoint.hg import (
    OutOfProcHuggingFaceExporter as OutOfProcHuggingFaceExporter,
)
from fairseq2.checkpoint.manager import CheckpointError as CheckpointError
from fairseq2.checkpoint.manager import CheckpointManager as CheckpointManager
from fairseq2.checkpoint.manager import (
    CheckpointNotFoundError as CheckpointNotFoundError,
)
from fairseq2.checkpoint.manager import (
    CheckpointReadyCallback as CheckpointReadyCallback,
)
from fairseq2.checkpoint.manager import (
    CheckpointSavedCallback as CheckpointSavedCallback,
)
from fairseq2.checkpoint.manager import (
    StandardCheckpointManager as StandardCheckpointManager,
)
from fairseq2.checkpoint.model_metadata import (
    ModelMetadataDumper as ModelMetadataDumper,
)
from fairseq2.checkpoint.model_metadata import (
    ModelMetadataLoader as ModelMetadataLoader,
)
from fairseq2.checkpoint.model_metadata import (
    ModelMetadataSource as ModelMetadataSource,
)
from fairseq2.checkpoint.model_metadata import (
    StandardModelMetadataDumper as StandardModelMetadataDumper,
)
from fairseq2.checkpoint.model_metadata import (
    StandardModelMetadataLoader as StandardModelMetadataLoader,
)


@final
class CheckpointDir:
    """Represents the directory path for storing checkpoints."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path

    @property
    def path(self) -> Path | None:
        return self._path
