# Copyright 2024 MosaicML LLM Foundry authors
# SPDX-License-Identifier: Apache-2.0
"""The LLM Foundry Version."""

__version__ = '0.22.0'
