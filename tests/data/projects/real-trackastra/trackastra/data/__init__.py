# ruff: noqa: F401

# Core data utilities (no training dependencies required)
from .data import (
    CTCData,
    _ctc_lineages,
    # load_ctc_data_from_subfolders,
    collate_sequence_padding,
    extract_features_regionprops,
)
from .example_data import example_data_bacteria, example_data_fluo_3d, example_data_hela
from .utils import filter_track_df, load_tiff_timeseries, load_tracklet_links
from .wrfeat import WRFeatures, build_windows, get_features

# Training-only classes (require lightning, kornia)
# Import these directly when needed for training:
#   from trackastra.data.augmentations import AugmentationPipeline, RandomCrop
#   from trackastra.data.distributed import BalancedDataModule, BalancedBatchSampler, BalancedDistributedSampler
