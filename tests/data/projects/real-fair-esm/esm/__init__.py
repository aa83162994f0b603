# Copyright (c) Facebook, Inc. and its affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from .version import version as __version__  # noqa

from .data import Alphabet, BatchConverter, FastaBatchedDataset  # noqa
from .model.esm1 import ProteinBertModel  # noqa
from .model.esm2 import ESM2  # noqa
from .model.msa_transformer import MSATransformer  #noqa
from . import pretrained  # noqa
