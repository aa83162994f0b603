# Copyright (c) OpenMMLab. All rights reserved.
from .dist import (all_gather_object, all_reduce, all_gather, all_reduce_dict,
                   collect_results, gather, broadcast, gather_object,
                   sync_random_seed, broadcast_object_list,
                   collect_results_cpu, collect_results_gpu, all_reduce_params)
from .utils import (get_dist_info, init_dist, init_local_group, get_backend,
                    get_world_size, get_rank, get_local_size, get_local_rank,
                    is_main_process, master_only, barrier, get_local_group,
                    is_distributed, get_default_group, get_data_device,
                    get_comm_device, cast_data_device, infer_launcher)

__all__ = [
    'all_gather_object', 'all_reduce', 'all_gather', 'all_reduce_dict',
    'collect_results', 'collect_results_cpu', 'collect_results_gpu', 'gather',
    'broadcast', 'gather_object', 'sync_random_seed', 'broadcast_object_list',
    'get_dist_info', 'init_dist', 'init_local_group', 'get_backend',
    'get_world_size', 'get_rank', 'get_local_size', 'get_local_group',
    'get_local_rank', 'is_main_process', 'master_only', 'barrier',
    'is_distributed', 'get_default_group', 'all_reduce_params',
    'get_data_device', 'get_comm_device', 'cast_data_device', 'infer_launcher'
]
