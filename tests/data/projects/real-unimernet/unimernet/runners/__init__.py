"""
 Copyright (c) 2022, salesforce.com, inc.
 All rights reserved.
 SPDX-License-Identifier: BSD-3-Clause
 For full license text, see the LICENSE file in the repo root or https://opensource.org/licenses/BSD-3-Clause
"""

from unimernet.runners.runner_base import RunnerBase
from unimernet.runners.runner_iter import RunnerIter

__all__ = ["RunnerBase", "RunnerIter"]
