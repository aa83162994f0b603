# Copyright © 2023-2024 Apple Inc.

from .common_ops import *  # noqa: F403
