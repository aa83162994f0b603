# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved.
from enum import Enum


class DecoderType(Enum):
    PYAV = "pyav"
    TORCHVISION = "torchvision"
    DECORD = "decord"
