# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.data.text.converters import StrSplitter as StrSplitter
from fairseq2.data.text.converters import StrToIntConverter as StrToIntConverter
from fairseq2.data.text.converters import StrToTensorConverter as StrToTensorConverter
from fairseq2.data.text.reader import LineEnding as LineEnding
from fairseq2.data.text.reader import read_text as read_text
