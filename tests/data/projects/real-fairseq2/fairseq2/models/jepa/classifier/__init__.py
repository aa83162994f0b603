# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.models.jepa.classifier.config import (
    JEPA_CLASSIFIER_FAMILY as JEPA_CLASSIFIER_FAMILY,
)
from fairseq2.models.jepa.classifier.config import (
    JepaClassifierConfig as JepaClassifierConfig,
)
from fairseq2.models.jepa.classifier.config import (
    register_jepa_classifier_configs as register_jepa_classifier_configs,
)
from fairseq2.models.jepa.classifier.factory import (
    JepaClassifierFactory as JepaClassifierFactory,
)
from fairseq2.models.jepa.classifier.factory import (
    create_jepa_classifier_model as create_jepa_classifier_model,
)
from fairseq2.models.jepa.classifier.hub import (
    get_jepa_classifier_model_hub as get_jepa_classifier_model_hub,
)
from fairseq2.models.jepa.classifier.model import AttentivePooler as AttentivePooler
from fairseq2.models.jepa.classifier.model import (
    CrossAttentionDecoderLayer as CrossAttentionDecoderLayer,
)
from fairseq2.models.jepa.classifier.model import (
    JepaClassifierModel as JepaClassifierModel,
)
