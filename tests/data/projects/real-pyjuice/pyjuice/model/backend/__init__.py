from .parflow_fusing import compile_cum_par_flows_fn, compute_cum_par_flows, cum_par_flows_to_device
from .par_update import compile_par_update_fn, em_par_update, par_update_to_device, sgd_par_update
from .normalize import normalize_parameters
from .eval_partition import eval_partition_fn
from .top_down_prob import eval_top_down_probs
