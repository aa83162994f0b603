# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from .ragged_batching import MIIAsyncPipeline, MIIPipeline
