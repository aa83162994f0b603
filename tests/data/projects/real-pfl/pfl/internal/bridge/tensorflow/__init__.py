# Copyright © 2023-2024 Apple Inc.

from .common import TFCommonBridge, get_or_make_tf_function
from .proximal import TFFedProxBridge
from .sgd import TFSGDBridge
