# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.models.family import HuggingFaceExport as HuggingFaceExport
from fairseq2.models.family import HuggingFaceExporter as HuggingFaceExporter
from fairseq2.models.family import LayerwiseACApplier as LayerwiseACApplier
from fairseq2.models.family import ModelCompiler as ModelCompiler
from fairseq2.models.family import ModelFactory as ModelFactory
from fairseq2.models.family import ModelFamily as ModelFamily
from fairseq2.models.family import ModelFamilyNotKnownError as ModelFamilyNotKnownError
from fairseq2.models.family import ModelFSDPApplier as ModelFSDPApplier
from fairseq2.models.family import ModelGatedError as ModelGatedError
from fairseq2.models.family import ModelStateDictConverter as ModelStateDictConverter
from fairseq2.models.family import ShardSpecsProvider as ShardSpecsProvider
from fairseq2.models.family import StandardModelFamily as StandardModelFamily
from fairseq2.models.family import _maybe_get_model_family as _maybe_get_model_family
from fairseq2.models.family import get_model_family_name as get_model_family_name
from fairseq2.models.family import (
    maybe_get_model_family_name as maybe_get_model_family_name,
)
from fairseq2.models.hub import GlobalModelLoader as GlobalModelLoader
from fairseq2.models.hub import (
    ModelArchitectureNotKnownError as ModelArchitectureNotKnownError,
)
from fairseq2.models.hub import ModelHub as ModelHub
from fairseq2.models.hub import ModelHubAccessor as ModelHubAccessor
from fairseq2.models.hub import ModelNotKnownError as ModelNotKnownError
from fairseq2.models.hub import load_model as load_model
