import torch
import numpy as np
from typing import Tuple, Optional, Dict, Any, Union, List
from diffusers import QwenImageTransformer2DModel
from diffusers.models.transformers.transformer_qwenimage import (
  QwenImageTransformerBlock,
  Transformer2DModelOutput,
)
from diffusers.utils import (
  USE_PEFT_BACKEND,
  scale_lora_layers,
  unscale_lora_layers,
)
from .functor_base import PatchFunctor
from ...logger import init_logger

logger = init_logger(__name__)


class QwenImageControlNetPatchFunctor(PatchFunctor):

  def _apply(
    self,
    transformer: QwenImageTransformer2DModel,
    **kwargs,
  ) -> QwenImageTransformer2DModel:

    _index_block = 0
    _num_blocks = len(transformer.transformer_blocks)
    for block in transformer.transformer_blocks:
      assert isinstance(block, QwenImageTransformerBlock)
      block._index_block = _index_block
      block._num_blocks = _num_blocks
      block.forward = __patch_block_forward__.__get__(block)
      _index_block += 1

    transformer.forward = __patch_transformer_forward__.__get__(transformer)
    transformer._is_patched = True

    return transformer


def __patch_block_forward__(
  self: QwenImageTransformerBlock,
  hidden_states: torch.Tensor,
  encoder_hidden_states: torch.Tensor,
  encoder_hidden_states_mask: torch.Tensor,
  temb: torch.Tensor,
  image_rotary_emb: Optional[Tuple[torch.Tensor, torch.Tensor]] = None,
  joint_attention_kwargs: Optional[Dict[str, Any]] = None,
  controlnet_block_samples: Optional[List[torch.Tensor]] = None,
) -> Tuple[torch.Tensor, torch.Tensor]:
  # Get modulation parameters for both streams
  img_mod_params = self.img_mod(temb)  # [B, 6*dim]
  txt_mod_params = self.txt_mod(temb)  # [B, 6*dim]

  # Split modulation parameters for norm1 and norm2
  img_mod1, img_mod2 = img_mod_params.chunk(2, dim=-1)  # Each [B, 3*dim]
  txt_mod1, txt_mod2 = txt_mod_params.chunk(2, dim=-1)  # Each [B, 3*dim]

  # Process image stream - norm1 + modulation
  img_normed = self.img_norm1(hidden_states)
  img_modulated, img_gate1 = self._modulate(img_normed, img_mod1)

  # Process text stream - norm1 + modulation
  txt_normed = self.txt_norm1(encoder_hidden_states)
  txt_modulated, txt_gate1 = self._modulate(txt_normed, txt_mod1)

  # Use QwenAttnProcessor2_0 for joint attention computation
  # This directly implements the DoubleStreamLayerMegatron logic:
  # 1. Computes QKV for both streams
  # 2. Applies QK normalization and RoPE
  # 3. Concatenates and runs joint attention
  # 4. Splits results back to separate streams
  joint_attention_kwargs = joint_attention_kwargs or {}
  attn_output = self.attn(
    hidden_states=img_modulated,  # Image stream (will be processed as "sample")
    encoder_hidden_states=txt_modulated,  # Text stream (will be processed as "context")
    encoder_hidden_states_mask=encoder_hidden_states_mask,
    image_rotary_emb=image_rotary_emb,
    **joint_attention_kwargs,
  )

  # QwenAttnProcessor2_0 returns (img_output, txt_output) when encoder_hidden_states is provided
  img_attn_output, txt_attn_output = attn_output

  # Apply attention gates and add residual (like in Megatron)
  hidden_states = hidden_states + img_gate1 * img_attn_output
  encoder_hidden_states = encoder_hidden_states + txt_gate1 * txt_attn_output

  # Process image stream - norm2 + MLP
  img_normed2 = self.img_norm2(hidden_states)
  img_modulated2, img_gate2 = self._modulate(img_normed2, img_mod2)
  img_mlp_output = self.img_mlp(img_modulated2)
  hidden_states = hidden_states + img_gate2 * img_mlp_output

  # Process text stream - norm2 + MLP
  txt_normed2 = self.txt_norm2(encoder_hidden_states)
  txt_modulated2, txt_gate2 = self._modulate(txt_normed2, txt_mod2)
  txt_mlp_output = self.txt_mlp(txt_modulated2)
  encoder_hidden_states = encoder_hidden_states + txt_gate2 * txt_mlp_output

  # Clip to prevent overflow for fp16
  if encoder_hidden_states.dtype == torch.float16:
    encoder_hidden_states = encoder_hidden_states.clip(-65504, 65504)
  if hidden_states.dtype == torch.float16:
    hidden_states = hidden_states.clip(-65504, 65504)

  if controlnet_block_samples is not None:
    # Add ControlNet conditioning
    num_blocks = self._num_blocks
    index_block = self._index_block
    interval_control = num_blocks / len(controlnet_block_samples)
    interval_control = int(np.ceil(interval_control))
    hidden_states = hidden_states + controlnet_block_samples[index_block // interval_control]

  return encoder_hidden_states, hidden_states


def __patch_transformer_forward__(
  self: QwenImageTransformer2DModel,
  hidden_states: torch.Tensor,
  encoder_hidden_states: torch.Tensor = None,
  encoder_hidden_states_mask: torch.Tensor = None,
  timestep: torch.LongTensor = None,
  img_shapes: Optional[List[Tuple[int, int, int]]] = None,
  txt_seq_lens: Optional[List[int]] = None,
  guidance: torch.Tensor = None,  # TODO: this should probably be removed
  attention_kwargs: Optional[Dict[str, Any]] = None,
  controlnet_block_samples=None,
  return_dict: bool = True,
) -> Union[torch.Tensor, Transformer2DModelOutput]:
  """The [`QwenTransformer2DModel`] forward method.

  :param hidden_states: Input hidden states.
  :param encoder_hidden_states: Conditional embeddings computed from prompts or other conditions.
  :param encoder_hidden_states_mask: Mask of the input conditions.
  :param timestep: Denoising timestep.
  :param img_shapes: Per-sample image shape metadata used by the transformer.
  :param txt_seq_lens: Per-sample text sequence lengths.
  :param guidance: Optional guidance tensor used by guided denoising flows.
  :param attention_kwargs: Optional keyword arguments forwarded to the active attention processor.
  :param controlnet_block_samples: Optional ControlNet residual samples injected into the blocks.
  :param return_dict: Whether to return a `Transformer2DModelOutput` instead of a plain tuple.
  :returns: A structured `Transformer2DModelOutput` when `return_dict=True`, otherwise a tuple
    whose first item is the output sample tensor.
  """
  if attention_kwargs is not None:
    attention_kwargs = attention_kwargs.copy()
    lora_scale = attention_kwargs.pop("scale", 1.0)
  else:
    lora_scale = 1.0

  if USE_PEFT_BACKEND:
    # weight the lora layers by setting `lora_scale` for each PEFT layer
    scale_lora_layers(self, lora_scale)
  else:
    if attention_kwargs is not None and attention_kwargs.get("scale", None) is not None:
      logger.warning(
        "Passing `scale` via `joint_attention_kwargs` when not using the PEFT backend is ineffective."
      )

  hidden_states = self.img_in(hidden_states)

  timestep = timestep.to(hidden_states.dtype)
  encoder_hidden_states = self.txt_norm(encoder_hidden_states)
  encoder_hidden_states = self.txt_in(encoder_hidden_states)

  if guidance is not None:
    guidance = guidance.to(hidden_states.dtype) * 1000

  temb = (self.time_text_embed(timestep, hidden_states)
          if guidance is None else self.time_text_embed(timestep, guidance, hidden_states))

  image_rotary_emb = self.pos_embed(img_shapes, txt_seq_lens, device=hidden_states.device)

  for index_block, block in enumerate(self.transformer_blocks):
    if torch.is_grad_enabled() and self.gradient_checkpointing:
      encoder_hidden_states, hidden_states = self._gradient_checkpointing_func(
        block,
        hidden_states,
        encoder_hidden_states,
        encoder_hidden_states_mask,
        temb,
        image_rotary_emb,
        controlnet_block_samples,
      )

    else:
      encoder_hidden_states, hidden_states = block(
        hidden_states=hidden_states,
        encoder_hidden_states=encoder_hidden_states,
        encoder_hidden_states_mask=encoder_hidden_states_mask,
        temb=temb,
        image_rotary_emb=image_rotary_emb,
        controlnet_block_samples=controlnet_block_samples,
        joint_attention_kwargs=attention_kwargs,
      )

    # # controlnet residual
    # if controlnet_block_samples is not None:
    #     interval_control = len(self.transformer_blocks) / len(controlnet_block_samples)
    #     interval_control = int(np.ceil(interval_control))
    #     hidden_states = hidden_states + controlnet_block_samples[index_block // interval_control]

  # Use only the image part (hidden_states) from the dual-stream blocks
  hidden_states = self.norm_out(hidden_states, temb)
  output = self.proj_out(hidden_states)

  if USE_PEFT_BACKEND:
    # remove `lora_scale` from each PEFT layer
    unscale_lora_layers(self, lora_scale)

  if not return_dict:
    return (output, )

  return Transformer2DModelOutput(sample=output)
