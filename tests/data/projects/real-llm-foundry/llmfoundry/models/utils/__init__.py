# Copyright 2022 MosaicML LLM Foundry authors
# SPDX-License-Identifier: Apache-2.0

from llmfoundry.models.utils.act_ckpt import (
    build_act_ckpt_mod_to_blocks,
    check_mapping_blocks_overlap,
    pass_on_block_idx,
)
from llmfoundry.models.utils.config_defaults import (
    attn_config_defaults,
    fc_type_defaults,
    ffn_config_defaults,
    init_config_defaults,
)
from llmfoundry.models.utils.config_moe_args import config_moe_args
from llmfoundry.models.utils.meta_init_context import (
    init_empty_weights,
    init_on_device,
)
from llmfoundry.models.utils.mpt_param_count import (
    mpt_get_active_params,
    mpt_get_total_params,
)
from llmfoundry.models.utils.param_init_fns import generic_param_init_fn_

__all__ = [
    'init_empty_weights',
    'init_on_device',
    'generic_param_init_fn_',
    'config_moe_args',
    'mpt_get_active_params',
    'mpt_get_total_params',
    'build_act_ckpt_mod_to_blocks',
    'pass_on_block_idx',
    'check_mapping_blocks_overlap',
    'ffn_config_defaults',
    'attn_config_defaults',
    'init_config_defaults',
    'fc_type_defaults',
]
