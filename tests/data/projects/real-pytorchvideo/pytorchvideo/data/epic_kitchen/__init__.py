# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved.

from .epic_kitchen_dataset import ActionData, EpicKitchenDataset
