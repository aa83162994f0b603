# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.

from fairseq2.data.parquet.table_bucketing.builder import TableBucketer as TableBucketer
from fairseq2.data.parquet.table_bucketing.config import (
    TableBucketingConfig as TableBucketingConfig,
)
