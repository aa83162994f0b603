# Coeyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from fairseq2.data.parquet.fragment_loading.builder import (
    ParquetFragmentLoader as ParquetFragmentLoader,
)
from fairseq2.data.parquet.fragment_loading.config import (
    FragmentLoadingConfig as FragmentLoadingConfig,
)
from fairseq2.data.parquet.fragment_loading.config import NamedColumns as NamedColumns
