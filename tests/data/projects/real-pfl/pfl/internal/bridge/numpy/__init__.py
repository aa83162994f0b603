# Copyright © 2023-2024 Apple Inc.

from .common import NumpyCommonBridge
