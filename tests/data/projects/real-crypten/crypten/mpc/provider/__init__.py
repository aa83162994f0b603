#!/usr/bin/env python3

# Copyright (c) Facebook, Inc. and its affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from .homomorphic_provider import HomomorphicProvider
from .tfp_provider import TrustedFirstParty
from .ttp_provider import TrustedThirdParty, TTPServer


__all__ = ["TrustedFirstParty", "TrustedThirdParty", "TTPServer", "HomomorphicProvider"]
