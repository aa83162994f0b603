# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.models.s2t_transformer.config import (
    S2T_TRANSFORMER_FAMILY as S2T_TRANSFORMER_FAMILY,
)
from fairseq2.models.s2t_transformer.config import (
    S2TTransformerConfig as S2TTransformerConfig,
)
from fairseq2.models.s2t_transformer.config import (
    register_s2t_transformer_configs as register_s2t_transformer_configs,
)
from fairseq2.models.s2t_transformer.factory import (
    S2TTransformerFactory as S2TTransformerFactory,
)
from fairseq2.models.s2t_transformer.factory import (
    create_s2t_transformer_model as create_s2t_transformer_model,
)
from fairseq2.models.s2t_transformer.feature_extractor import (
    Conv1dFbankSubsampler as Conv1dFbankSubsampler,
)
from fairseq2.models.s2t_transformer.frontend import (
    S2TTransformerFrontend as S2TTransformerFrontend,
)
from fairseq2.models.s2t_transformer.hub import (
    get_s2t_transformer_model_hub as get_s2t_transformer_model_hub,
)
from fairseq2.models.s2t_transformer.hub import (
    get_s2t_transformer_tokenizer_hub as get_s2t_transformer_tokenizer_hub,
)
from fairseq2.models.s2t_transformer.interop import (
    convert_s2t_transformer_state_dict as convert_s2t_transformer_state_dict,
)
from fairseq2.models.s2t_transformer.tokenizer import (
    S2TTransformerTokenizer as S2TTransformerTokenizer,
)
from fairseq2.models.s2t_transformer.tokenizer import (
    S2TTransformerTokenizerConfig as S2TTransformerTokenizerConfig,
)
from fairseq2.models.s2t_transformer.tokenizer import (
    load_s2t_transformer_tokenizer as load_s2t_transformer_tokenizer,
)
