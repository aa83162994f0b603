from laia.callbacks.decode import Decode
from laia.callbacks.learning_rate import LearningRate
from laia.callbacks.netout import Netout
from laia.callbacks.progress_bar import ProgressBar
from laia.callbacks.progress_bar_gpu_stats import ProgressBarGPUStats
from laia.callbacks.segmentation import Segmentation
from laia.callbacks.training_timer import TrainingTimer
