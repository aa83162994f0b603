from .task_args import TaskArgs
from .downscaling_args import DownscalingArgs
from .forecasting_args import ForecastingArgs
