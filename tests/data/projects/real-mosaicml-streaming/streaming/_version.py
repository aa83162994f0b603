# Copyright 2022-2024 MosaicML Streaming authors
# SPDX-License-Identifier: Apache-2.0

"""The Streaming Version."""

__version__ = '0.13.0'
