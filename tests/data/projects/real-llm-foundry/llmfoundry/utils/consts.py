# Copyright 2024 MosaicML LLM Foundry authors
# SPDX-License-Identifier: Apache-2.0

CROSS_ENTROPY_IGNORE_INDEX = -100
