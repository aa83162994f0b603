from .visualize import (
    visualize_at_index,
    visualize_mean_bias,
    visualize_sample,
    rank_histogram,
)
from .loaders import (
    load_model_module,
    load_forecasting_module,
    load_downscaling_module,
    load_climatebench_module,
    load_architecture,
    load_optimizer,
    load_lr_scheduler,
    load_loss,
    load_transform,
)
from .mc_dropout import get_monte_carlo_predictions
