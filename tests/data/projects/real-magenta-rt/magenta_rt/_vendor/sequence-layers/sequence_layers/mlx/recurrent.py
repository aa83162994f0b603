# Copyright 2026 Google LLC
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
"""Recurrent sequence layers for MLX."""

import dataclasses
import fractions
from typing import Callable, Optional

import mlx.core as mx
import mlx.nn as nn

from sequence_layers.mlx import basic_types as bt
from sequence_layers.mlx import init_mapping
from sequence_layers.mlx import types
from sequence_layers.jax.types import SequenceLayerConfig as _SequenceLayerConfig

Sequence = bt.Sequence


class LSTM(types.SequenceLayer):
  """A Long Short-term Memory (LSTM) layer."""

  @dataclasses.dataclass(frozen=True)
  class Config(_SequenceLayerConfig):
    """Config for LSTM."""
    units: int
    compute_dtype: types.DType | None = None
    param_dtype: types.DType = mx.float32
    use_bias: bool = True
    name: str | None = None

    def make(self) -> 'LSTM':
      return LSTM.from_config(self)

  def __init__(self, config: Config):
    super().__init__()
    self._config = config
    self.inner = None

  def _ensure_initialized(self, in_features: int):
    if self.inner is not None:
      return
    self.inner = nn.LSTM(
        input_size=in_features,
        hidden_size=self._config.units,
        bias=self._config.use_bias,
    )

  @property
  def supports_step(self):
    return True

  @property
  def block_size(self):
    return 1

  @property
  def output_ratio(self):
    return fractions.Fraction(1, 1)

  @property
  def input_latency(self):
    return 0

  def get_output_shape(self, input_shape, *, constants=None):
    return (self._config.units,)

  def get_output_dtype(self, input_dtype, *, constants=None):
    if self._config.compute_dtype is not None:
      return init_mapping._to_mx_dtype(self._config.compute_dtype)
    return init_mapping._to_mx_dtype(self._config.param_dtype)

  def get_initial_state(self, batch_size, input_spec, *, constants=None):
    self._ensure_initialized(input_spec.shape[-1])
    compute_dtype = self.get_output_dtype(input_spec.dtype, constants=constants)
    # Follow JAX shape: (B, 1, H)
    c = mx.zeros((batch_size, 1, self._config.units), dtype=compute_dtype)
    h = mx.zeros((batch_size, 1, self._config.units), dtype=compute_dtype)
    return (c, h)

  @types.check_step
  def step(self, x, state, *, constants=None):
    self._ensure_initialized(x.shape[-1])
    c, h = state

    # Squeeze time dimension for mlx.nn.LSTM
    h_squeezed = mx.squeeze(h, axis=1)
    c_squeezed = mx.squeeze(c, axis=1)

    y_stacked, c_stacked = self.inner(x.values, h_squeezed, c_squeezed)

    new_h = y_stacked
    new_c = c_stacked

    if x.shape[1] == 1:
        mask = mx.reshape(x.mask, (x.mask.shape[0], 1, 1))
        new_c = mx.where(mask, new_c, c)
        new_h = mx.where(mask, new_h, h)
    else:
        # If L > 1, take last elements for state, but keep time dim of 1
        new_h = y_stacked[:, -1:, :]
        new_c = c_stacked[:, -1:, :]

    return Sequence(y_stacked, x.mask), (new_c, new_h)

  @types.check_layer
  def layer(self, x, *, constants=None):
    self._ensure_initialized(x.shape[-1])

    y_stacked, _ = self.inner(x.values)

    return Sequence(y_stacked, x.mask)

  @classmethod
  def from_config(cls, config):
    return cls(config)
