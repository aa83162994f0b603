# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

import inspect
from unittest import TestCase

from torchft.coordination import (
    LighthouseClient,
    LighthouseServer,
    ManagerClient,
    ManagerServer,
    Quorum,
    QuorumMember,
)


class TestCoordination(TestCase):
    def test_coordination_docs(self) -> None:
        classes = [
            ManagerClient,
            ManagerServer,
            LighthouseServer,
            LighthouseClient,
            Quorum,
            QuorumMember,
        ]
        for cls in classes:
            self.assertIn("Args:", str(cls.__doc__), cls)
            for name, method in inspect.getmembers(cls, predicate=inspect.ismethod):
                if name.startswith("_"):
                    continue
                self.assertIn("Args:", str(cls.__doc__), cls)
