# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project

# flake8: noqa
from .fp4_utils import *
from .fp6_utils import *
from .helpers import *
from .mxfp_utils import *
