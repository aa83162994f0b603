from __future__ import print_function, absolute_import

from torchreid.reid.data.datasets.dataset import Dataset, ImageDataset, VideoDataset 
from torchreid.reid.data.datasets import register_image_dataset, register_video_dataset
from torchreid.reid.data.datamanager import ImageDataManager, VideoDataManager