# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project

# flake8: noqa
# isort: off

from .converters import *
from .convert_checkpoint import *
from .memory import exec_jobs_dynamic
