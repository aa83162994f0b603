# Copyright (c) OpenMMLab. All rights reserved.
from .alias_multinomial import AliasMethod
from .batch_shuffle import batch_shuffle_ddp, batch_unshuffle_ddp
from .collect import dist_forward_collect, nondist_forward_collect
from .collect_env import collect_env
from .distributed_sinkhorn import distributed_sinkhorn
from .gather import concat_all_gather
from .misc import get_model
from .setup_env import register_all_modules

__all__ = [
    'AliasMethod', 'batch_shuffle_ddp', 'batch_unshuffle_ddp',
    'dist_forward_collect', 'nondist_forward_collect', 'collect_env',
    'sync_random_seed', 'distributed_sinkhorn', 'concat_all_gather',
    'register_all_modules', 'get_model'
]
