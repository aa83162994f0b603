from typing_extensions import *
import warnings

import torch
import torch.nn as nn
from transformers.masking_utils import create_causal_mask
from transformers.modeling_outputs import CausalLMOutputWithPast
from transformers.models.llama.modeling_llama import LlamaForCausalLM

from ..context import doing_recompute, save_for_recompute, get_recompute_data
from ..roundpipe import RoundPipe
from .function import CompileForCausalLMLoss, ChunkedCompileLinearForCausalLMLoss


class LlamaForCausalLMPrefix(nn.Module):
    def __init__(self, model: LlamaForCausalLM) -> None:
        super().__init__()
        self.embed_tokens = model.model.embed_tokens
        self.rotary_emb = model.model.rotary_emb
        self.config = model.model.config

    def forward(
        self,
        input_ids: Optional[torch.Tensor] = None,
        attention_mask: Optional[torch.Tensor] = None,
        position_ids: Optional[torch.Tensor] = None,
        past_key_values: Optional[Any] = None,
        inputs_embeds: Optional[torch.Tensor] = None,
        labels: Optional[torch.Tensor] = None,
        use_cache: Optional[bool] = None,
        cache_position: Optional[torch.Tensor] = None,
        logits_to_keep: Union[int, torch.Tensor] = 0,
        **kwargs: Any,
    ):
        if (input_ids is None) ^ (inputs_embeds is not None):
            raise ValueError(
                "You must specify exactly one of input_ids or inputs_embeds"
            )

        if inputs_embeds is None:
            inputs_embeds = cast(torch.Tensor, self.embed_tokens(input_ids))

        # Early return to avoid host-device synchronization in create_causal_mask
        if doing_recompute():
            causal_mask, position_ids, position_embeddings = get_recompute_data()
            return (
                inputs_embeds,
                causal_mask,
                position_ids,
                position_embeddings,
                kwargs,
                labels,
                logits_to_keep,
            )

        if use_cache:
            warnings.warn(
                "`use_cache` will set to False. Caching behavior is not supported in RoundPipe."
            )
        use_cache = False
        if past_key_values is not None:
            warnings.warn(
                "`past_key_values` will be ignored. Caching behavior is not supported in RoundPipe."
            )
        past_key_values = None

        if cache_position is None:
            past_seen_tokens = (
                past_key_values.get_seq_length() if past_key_values is not None else 0
            )
            cache_position = torch.arange(
                past_seen_tokens,
                past_seen_tokens + inputs_embeds.shape[1],
                device=inputs_embeds.device,
            )

        if position_ids is None:
            position_ids = cache_position.unsqueeze(0)

        if not isinstance(causal_mask := attention_mask, dict):
            causal_mask = create_causal_mask(
                config=self.config,
                input_embeds=inputs_embeds,
                attention_mask=attention_mask,
                cache_position=cache_position,
                past_key_values=past_key_values,
                position_ids=position_ids,
            )

        hidden_states = inputs_embeds
        position_embeddings = self.rotary_emb(hidden_states, position_ids)

        save_for_recompute(causal_mask, position_ids, position_embeddings)
        return (
            hidden_states,
            causal_mask,
            position_ids,
            position_embeddings,
            kwargs,
            labels,
            logits_to_keep,
        )


class LlamaForCausalLMWrappedLayer(nn.Module):
    def __init__(self, layer: nn.Module) -> None:
        super().__init__()
        self.layer = layer

    def forward(self, input):
        (
            hidden_states,
            causal_mask,
            position_ids,
            position_embeddings,
            kwargs,
            labels,
            logits_to_keep,
        ) = input
        hidden_states = self.layer(
            hidden_states,
            attention_mask=causal_mask,
            position_ids=position_ids,
            past_key_values=None,
            use_cache=False,
            cache_position=None,
            position_embeddings=position_embeddings,
            **kwargs,
        )
        return (
            hidden_states,
            causal_mask,
            position_ids,
            position_embeddings,
            kwargs,
            labels,
            logits_to_keep,
        )


class LlamaForCausalLMPostfix(nn.Module):
    def __init__(self, model: LlamaForCausalLM) -> None:
        super().__init__()
        self.norm = model.model.norm
        self.vocab_size = model.config.vocab_size
        self.lm_head = model.lm_head
        self.loss_function = model.loss_function

    def forward(self, input):
        (
            hidden_states,
            causal_mask,
            position_ids,
            position_embeddings,
            kwargs,
            labels,
            logits_to_keep,
        ) = input
        hidden_states = self.norm(hidden_states)

        slice_indices = (
            slice(-logits_to_keep, None)
            if isinstance(logits_to_keep, int)
            else logits_to_keep
        )
        logits = None
        if kwargs.get("return_logits", True):
            logits = self.lm_head(hidden_states[:, slice_indices, :])

        loss = None
        if labels is not None:
            if logits is None:
                loss = ChunkedCompileLinearForCausalLMLoss(
                    hidden_states[:, slice_indices, :],
                    self.lm_head,
                    labels,
                    **kwargs,
                )
            else:
                loss = self.loss_function(
                    logits=logits, labels=labels, vocab_size=self.vocab_size, **kwargs
                )

        return CausalLMOutputWithPast(loss=cast(torch.FloatTensor, loss), logits=logits)


EXPECTED_MODEL_CLASS = LlamaForCausalLM


def wrap_model(model: LlamaForCausalLM, **roundpipe_kwargs: Any) -> RoundPipe:
    model.loss_function = CompileForCausalLMLoss
    prefix = LlamaForCausalLMPrefix(model)
    layers = [LlamaForCausalLMWrappedLayer(layer) for layer in model.model.layers]
    postfix = LlamaForCausalLMPostfix(model)
    wrapped_model = RoundPipe(
        nn.Sequential(prefix, *layers, postfix), **roundpipe_kwargs
    )
    wrapped_model.set_original_model(model)
    return wrapped_model
