# Copyright © 2023-2024 Apple Inc.

from .common import PyTorchCommonBridge
from .proximal import PyTorchFedProxBridge
from .sgd import PyTorchSGDBridge
