# This file is part of LensKit.
# Copyright (C) 2018-2023 Boise State University.
# Copyright (C) 2023-2025 Drexel University.
# Licensed under the MIT license, see LICENSE.md for details.
# SPDX-License-Identifier: MIT

"""
Item list collections.
"""

from ._base import ItemListCollection, ItemListCollector, MutableItemListCollection
from ._keys import GenericKey, QueryIDKey, UserIDKey, key_dict
from ._list import ListILC

__all__ = [
    "GenericKey",
    "UserIDKey",
    "QueryIDKey",
    "ItemListCollection",
    "ItemListCollector",
    "MutableItemListCollection",
    "ListILC",
    "key_dict",
]
