# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project

# flake8: noqa

from .from_accelerate import from_accelerate
from .to_accelerate import to_accelerate
