import functools
from typing import Optional

import torch
import torch.nn.functional as F
from diffusers.models.modeling_utils import ModelMixin
from diffusers.models.transformers.transformer_ltx import (
  AttentionModuleMixin,
  LTXAttention,
  LTXVideoAttnProcessor,
  LTXVideoTransformer3DModel,
  apply_rotary_emb,
)

from ...attention import _dispatch_attention_fn
from ...distributed.core import (
  _ContextParallelInput,
  _ContextParallelModelPlan,
  _ContextParallelOutput,
)
from ...logger import init_logger
from ..config import ParallelismConfig
from .register import (
  ContextParallelismPlanner,
  ContextParallelismPlannerRegister,
)

logger = init_logger(__name__)


@ContextParallelismPlannerRegister.register("LTXVideo")
class LTXVideoContextParallelismPlanner(ContextParallelismPlanner):

  def _apply(
    self,
    transformer: Optional[torch.nn.Module | ModelMixin] = None,
    parallelism_config: Optional[ParallelismConfig] = None,
    **kwargs,
  ) -> _ContextParallelModelPlan:
    assert transformer is not None, "Transformer must be provided."
    assert isinstance(
      transformer,
      LTXVideoTransformer3DModel), "Transformer must be an instance of LTXVideoTransformer3DModel"

    # Apply monkey patch to fix attention mask preparation at class level
    assert issubclass(LTXAttention, AttentionModuleMixin)
    LTXAttention.prepare_attention_mask = __patch__LTXAttention_prepare_attention_mask__
    LTXVideoAttnProcessor.__call__ = __patch__LTXVideoAttnProcessor__call__

    _cp_plan = {
      "": {
        "hidden_states":
        _ContextParallelInput(split_dim=1, expected_dims=3, split_output=False),
        "encoder_hidden_states":
        _ContextParallelInput(split_dim=1, expected_dims=3, split_output=False),
      },
      "rope": {
        0: _ContextParallelInput(split_dim=1, expected_dims=3, split_output=True),
        1: _ContextParallelInput(split_dim=1, expected_dims=3, split_output=True),
      },
      "proj_out": _ContextParallelOutput(gather_dim=1, expected_dims=3),
    }
    return _cp_plan


@functools.wraps(LTXAttention.prepare_attention_mask)
def __patch__LTXAttention_prepare_attention_mask__(
  self: LTXAttention,
  attention_mask: torch.Tensor,
  target_length: int,
  batch_size: int,
  out_dim: int = 3,
  # NOTE(DefTruth): Allow specifying head_size for CP
  head_size: Optional[int] = None,
) -> torch.Tensor:
  """Prepare the attention mask for the attention computation.

  :param attention_mask: The attention mask to prepare.
  :param target_length: The target length of the attention mask.
  :param batch_size: The batch size for repeating the attention mask.
  :param out_dim: Output dimension.
  :param head_size: Optional per-sample head count override used by context parallelism.
  :returns: The prepared attention mask.
  """
  if head_size is None:
    head_size = self.heads
  if attention_mask is None:
    return attention_mask

  current_length: int = attention_mask.shape[-1]
  if current_length != target_length:
    if attention_mask.device.type == "mps":
      # HACK: MPS: Does not support padding by greater than dimension of input tensor.
      # Instead, we can manually construct the padding tensor.
      padding_shape = (
        attention_mask.shape[0],
        attention_mask.shape[1],
        target_length,
      )
      padding = torch.zeros(
        padding_shape,
        dtype=attention_mask.dtype,
        device=attention_mask.device,
      )
      attention_mask = torch.cat([attention_mask, padding], dim=2)
    else:
      # TODO: for pipelines such as stable-diffusion, padding cross-attn mask:
      #       we want to instead pad by (0, remaining_length), where remaining_length is:
      #       remaining_length: int = target_length - current_length
      # TODO: re-enable tests/models/test_models_unet_2d_condition.py#test_model_xattn_padding
      attention_mask = F.pad(attention_mask, (0, target_length), value=0.0)

  if out_dim == 3:
    if attention_mask.shape[0] < batch_size * head_size:
      attention_mask = attention_mask.repeat_interleave(head_size, dim=0)
  elif out_dim == 4:
    attention_mask = attention_mask.unsqueeze(1)
    attention_mask = attention_mask.repeat_interleave(head_size, dim=1)

  return attention_mask


@functools.wraps(LTXVideoAttnProcessor.__call__)
def __patch__LTXVideoAttnProcessor__call__(
  self: LTXVideoAttnProcessor,
  attn: "LTXAttention",
  hidden_states: torch.Tensor,
  encoder_hidden_states: Optional[torch.Tensor] = None,
  attention_mask: Optional[torch.Tensor] = None,
  image_rotary_emb: Optional[torch.Tensor] = None,
) -> torch.Tensor:
  batch_size, sequence_length, _ = (hidden_states.shape if encoder_hidden_states is None else
                                    encoder_hidden_states.shape)

  if attention_mask is not None:
    if self._cp_config is None:
      attention_mask = attn.prepare_attention_mask(attention_mask, sequence_length, batch_size)
      attention_mask = attention_mask.view(batch_size, attn.heads, -1, attention_mask.shape[-1])
    else:
      # NOTE(DefTruth): Fix attention mask preparation for context parallelism
      cp_config = self._cp_config
      if cp_config is not None and cp_config._world_size > 1:
        head_size = attn.heads // cp_config._world_size
        attention_mask = attn.prepare_attention_mask(
          attention_mask,
          sequence_length * cp_config._world_size,
          batch_size,
          3,
          head_size,
        )
        attention_mask = attention_mask.view(batch_size, head_size, -1, attention_mask.shape[-1])

  if encoder_hidden_states is None:
    encoder_hidden_states = hidden_states

  query = attn.to_q(hidden_states)
  key = attn.to_k(encoder_hidden_states)
  value = attn.to_v(encoder_hidden_states)

  query = attn.norm_q(query)
  key = attn.norm_k(key)

  if image_rotary_emb is not None:
    query = apply_rotary_emb(query, image_rotary_emb)
    key = apply_rotary_emb(key, image_rotary_emb)

  query = query.unflatten(2, (attn.heads, -1))
  key = key.unflatten(2, (attn.heads, -1))
  value = value.unflatten(2, (attn.heads, -1))

  hidden_states = _dispatch_attention_fn(
    query,
    key,
    value,
    attn_mask=attention_mask,
    dropout_p=0.0,
    is_causal=False,
    backend=self._attention_backend,
    cp_config=self._cp_config,
  )
  hidden_states = hidden_states.flatten(2, 3)
  hidden_states = hidden_states.to(query.dtype)

  hidden_states = attn.to_out[0](hidden_states)
  hidden_states = attn.to_out[1](hidden_states)
  return hidden_states
