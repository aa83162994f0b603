# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.models.s2t_conformer.config import (
    S2T_CONFORMER_FAMILY as S2T_CONFORMER_FAMILY,
)
from fairseq2.models.s2t_conformer.config import (
    S2TConformerConfig as S2TConformerConfig,
)
from fairseq2.models.s2t_conformer.config import (
    register_s2t_conformer_configs as register_s2t_conformer_configs,
)
from fairseq2.models.s2t_conformer.factory import (
    S2TConformerFactory as S2TConformerFactory,
)
from fairseq2.models.s2t_conformer.factory import (
    create_s2t_conformer_model as create_s2t_conformer_model,
)
from fairseq2.models.s2t_conformer.hub import (
    get_s2t_conformer_model_hub as get_s2t_conformer_model_hub,
)
from fairseq2.models.s2t_conformer.interop import (
    convert_s2t_conformer_state_dict as convert_s2t_conformer_state_dict,
)
