# Coeyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from fairseq2.data.parquet.fragment_streaming.builder import (
    ParquetFragmentStreamer as ParquetFragmentStreamer,
)
from fairseq2.data.parquet.fragment_streaming.config import (
    FragmentStreamingConfig as FragmentStreamingConfig,
)
from fairseq2.data.parquet.fragment_streaming.config import (
    ParquetDatasetLimitOptions as ParquetDatasetLimitOptions,
)
from fairseq2.data.parquet.fragment_streaming.primitives import (
    RejectionDistributionSmoother as RejectionDistributionSmoother,
)
