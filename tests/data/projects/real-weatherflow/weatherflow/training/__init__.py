from .flow_trainer import FlowTrainer, compute_flow_loss
from .metrics import energy_ratio, mae, persistence_rmse, rmse
from .utils import set_global_seed

__all__ = [
    'FlowTrainer',
    'compute_flow_loss',
    'rmse',
    'mae',
    'energy_ratio',
    'persistence_rmse',
    'set_global_seed',
]
