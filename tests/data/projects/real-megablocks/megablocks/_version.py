# Copyright 2024 Databricks
# SPDX-License-Identifier: Apache-2.0

"""The MegaBlocks Version."""

__version__ = '0.10.0'
