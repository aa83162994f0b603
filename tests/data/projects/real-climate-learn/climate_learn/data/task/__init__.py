from .args import TaskArgs, DownscalingArgs, ForecastingArgs
from .task import Task
from .downscaling import Downscaling
from .forecasting import Forecasting
