# Copyright 2024 MosaicML LLM Foundry authors
# SPDX-License-Identifier: Apache-2.0

_MASTER_WEIGHTS_PRECISION = 'float32'
