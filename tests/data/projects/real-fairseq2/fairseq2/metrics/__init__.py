# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.metrics.aggregation import Max as Max
from fairseq2.metrics.aggregation import Mean as Mean
from fairseq2.metrics.aggregation import Min as Min
from fairseq2.metrics.aggregation import Sum as Sum
from fairseq2.metrics.bag import MetricBag as MetricBag
from fairseq2.metrics.bag import sync_and_compute_metrics as sync_and_compute_metrics
from fairseq2.metrics.formatters import format_as_byte_size as format_as_byte_size
from fairseq2.metrics.formatters import format_as_float as format_as_float
from fairseq2.metrics.formatters import format_as_int as format_as_int
from fairseq2.metrics.formatters import format_as_percentage as format_as_percentage
from fairseq2.metrics.formatters import format_as_seconds as format_as_seconds
