# Copyright 2022-2024 MosaicML Streaming authors
# SPDX-License-Identifier: Apache-2.0

"""MosaicML Streaming Datasets for cloud-native model training."""

from streaming.base.dataloader import StreamingDataLoader
from streaming.base.dataset import StreamingDataset
from streaming.base.format import CSVWriter, JSONWriter, MDSWriter, TSVWriter, XSVWriter
from streaming.base.local import LocalDataset
from streaming.base.stream import Stream

__all__ = [
    'StreamingDataLoader', 'Stream', 'StreamingDataset', 'CSVWriter', 'JSONWriter', 'LocalDataset',
    'MDSWriter', 'TSVWriter', 'XSVWriter'
]
