from .print_utils import print_distributed, iterate_tqdm, setup_log
from .distributed import (
    get_comm_size_and_rank,
    get_device_list,
    get_device,
    get_device_name,
    get_device_from_name,
    is_model_distributed,
    get_distributed_model,
    setup_ddp,
    nsplit,
    comm_reduce,
)
from .model import (
    save_model,
    get_summary_writer,
    unsorted_segment_mean,
    load_existing_model,
    load_existing_model_config,
    loss_function_selection,
    tensor_divide,
    EarlyStopping,
)
from .time_utils import Timer, print_timers
from .config_utils import (
    update_config,
    update_config_minmax,
    get_log_name_config,
    save_config,
)

from .optimizer import select_optimizer
from .atomicdescriptors import atomicdescriptors
