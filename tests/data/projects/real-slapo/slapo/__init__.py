# Copyright Amazon.com, Inc. or its affiliates. All Rights Reserved.
# SPDX-License-Identifier: Apache-2.0

from .autotune.tune import Database, Space, Symbol
from .env import *
from .initialization import init_empty_weights
from .logger import get_logger
from .primitives import register_primitive
from .build import *
from .schedule import *
from .tracer import *
from .utils import *
from .version import __version__
from .random import set_random_seed, get_cuda_rng_tracker, is_random_seed_set
from .checkpoint import checkpoint
