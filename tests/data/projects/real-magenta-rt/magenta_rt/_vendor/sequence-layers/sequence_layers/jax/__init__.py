# Copyright 2024 Google LLC
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     https://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""Sequence layers in JAX."""

# pylint: disable=wildcard-import
from sequence_layers.jax.attention import *
from sequence_layers.jax.combinators import *
from sequence_layers.jax.conditioning import *
from sequence_layers.jax.convolution import *
from sequence_layers.jax.dense import *
from sequence_layers.jax.dsp import *
from sequence_layers.jax.normalization import *
from sequence_layers.jax.pooling import *
from sequence_layers.jax.position import *
from sequence_layers.jax.recurrent import *
from sequence_layers.jax.simple import *
from sequence_layers.jax.time_varying import *
from sequence_layers.jax.types import *
