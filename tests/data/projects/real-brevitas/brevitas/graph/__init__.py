# Copyright (C) 2023, Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause

from .base import *
from .calibrate import *
from .channel_splitting import *
from .equalize import *
from .fixed_point import *
from .per_input import *
from .standardize import *
