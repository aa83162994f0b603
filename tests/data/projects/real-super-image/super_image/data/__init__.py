from .datasets import augment_five_crop, EvalDataset, TrainDataset, EvalDatasetH5, TrainAugmentDatasetH5
from .builder import DatasetBuilder
from .loader import ImageLoader
from .metrics import EvalMetrics
