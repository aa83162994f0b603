from .common import (
    read_csv as read_csv,
    keep_only_existing_files as keep_only_existing_files,
)

from .graph_utils import (
    degree as degree,
    normalize_adj as normalize_adj,
    add_self_loops as add_self_loops,
    build_adj as build_adj,
)

from .trainer import Trainer as Trainer
from .annealing_scheduler import (
    AnnealingScheduler as AnnealingScheduler,
    LinearAnnealingScheduler as LinearAnnealingScheduler,
    ConstantAnnealingScheduler as ConstantAnnealingScheduler,
    CyclicalAnnealingScheduler as CyclicalAnnealingScheduler,
)
