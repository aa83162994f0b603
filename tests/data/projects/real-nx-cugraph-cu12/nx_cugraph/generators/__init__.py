# SPDX-FileCopyrightText: Copyright (c) 2023-2024, NVIDIA CORPORATION.
# SPDX-License-Identifier: Apache-2.0
from .classic import *
from .community import *
from .ego import *
from .small import *
from .social import *
