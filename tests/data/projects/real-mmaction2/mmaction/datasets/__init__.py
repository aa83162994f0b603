# Copyright (c) OpenMMLab. All rights reserved.
from .activitynet_dataset import ActivityNetDataset
from .audio_dataset import AudioDataset
from .ava_dataset import AVADataset, AVAKineticsDataset
from .base import BaseActionDataset
from .charades_sta_dataset import CharadesSTADataset
from .msrvtt_datasets import MSRVTTVQA, MSRVTTVQAMC, MSRVTTRetrieval
from .pose_dataset import PoseDataset
from .rawframe_dataset import RawframeDataset
from .repeat_aug_dataset import RepeatAugDataset, repeat_pseudo_collate
from .transforms import *  # noqa: F401, F403
from .video_dataset import VideoDataset
from .video_text_dataset import VideoTextDataset

__all__ = [
    'AVADataset', 'AVAKineticsDataset', 'ActivityNetDataset', 'AudioDataset',
    'BaseActionDataset', 'PoseDataset', 'RawframeDataset', 'RepeatAugDataset',
    'VideoDataset', 'repeat_pseudo_collate', 'VideoTextDataset',
    'MSRVTTRetrieval', 'MSRVTTVQA', 'MSRVTTVQAMC', 'CharadesSTADataset'
]
