"""The lightly.data module provides a dataset wrapper and collate functions."""

# Copyright (c) 2020. Lightly AG and its affiliates.
# All Rights Reserved

from lightly.data._video import (
    EmptyVideoError,
    NonIncreasingTimestampError,
    UnseekableTimestampError,
    VideoError,
)
from lightly.data.dataset import LightlyDataset
from lightly.data.ijepa_collate import IJEPAMaskCollator
from lightly.data.multi_view_collate import MultiViewCollate
