# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.

from .tir import get_analyzer_by_tir # pylint: disable=unused-import
