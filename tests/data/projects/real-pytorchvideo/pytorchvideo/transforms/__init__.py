# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved.

from .augmix import AugMix  # noqa
from .mix import CutMix, MixUp, MixVideo  # noqa
from .rand_augment import RandAugment  # noqa
from .transforms import *  # noqa
from .transforms_factory import create_video_transform  # noqa
