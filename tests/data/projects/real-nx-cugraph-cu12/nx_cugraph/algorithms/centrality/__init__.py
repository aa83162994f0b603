# SPDX-FileCopyrightText: Copyright (c) 2023, NVIDIA CORPORATION.
# SPDX-License-Identifier: Apache-2.0
from .betweenness import *
from .degree_alg import *
from .eigenvector import *
from .katz import *
