# This file is part of LensKit.
# Copyright (C) 2018-2023 Boise State University.
# Copyright (C) 2023-2025 Drexel University.
# Licensed under the MIT license, see LICENSE.md for details.
# SPDX-License-Identifier: MIT

from ._base import Progress
from ._dispatch import item_progress, set_progress_impl
from ._handles import item_progress_handle, pbh_update

__all__ = [
    "Progress",
    "set_progress_impl",
    "item_progress",
    "item_progress_handle",
    "pbh_update",
]
