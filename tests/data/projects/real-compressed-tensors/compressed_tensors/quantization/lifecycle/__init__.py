# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project

# flake8: noqa
# isort: skip_file

from .forward import *
from .initialize import *
from .compressed import *
from .apply import *
from .helpers import *
