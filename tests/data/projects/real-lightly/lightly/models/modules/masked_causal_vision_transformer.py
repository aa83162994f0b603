import inspect
from functools import partial
from typing import Callable, Iterable, Optional

import torch
import torch.nn.functional as F
from timm.models import _manipulate
from timm.models.vision_transformer import Attention, Block, VisionTransformer
from torch import Tensor, jit


def _checkpoint_seq(blocks: Iterable[Callable[..., Tensor]], tokens: Tensor) -> Tensor:
    if not tokens.requires_grad:
        # Reentrant checkpointing (the default for timm < 1.0.16) only tracks
        # gradients if an input requires grad. Without this, the blocks get no
        # gradients when everything before them is frozen.
        tokens = tokens.detach().requires_grad_()
    out: Tensor = _manipulate.checkpoint_seq(blocks, tokens)
    return out


# Type ignore because superclass has Any types.
class MaskedCausalAttention(Attention):  # type: ignore[misc]
    """Identical to timm.models.vision_transformer.Attention, but supports causal
    attention with masking. Please check the source code of the
    timm.models.vision_transformer.Attention class for input parameters.

    The implementation is based on AIM [0].

    - [0]: AIM, 2024, https://arxiv.org/abs/2401.08541
    """

    def forward(
        self, x: Tensor, mask: Optional[Tensor] = None, is_causal: bool = True
    ) -> Tensor:
        """Forward pass of the attention layer.

        Args:
            x:
                Input tensor of shape (batch_size, sequence_length, channels).
            mask:
                Mask of shape (batch_size, sequence_length) indicating which tokens
                should be masked. Tokens where the mask is True will only be used for
                causal attention, while unmasked tokens are used for bidirectional
                attention. If the mask is None, all tokens are used for bidirectional
                attention. Ignored if is_causal is False.
            is_causal:
                Whether to apply causal attention to masked tokens. If False, the mask
                is ignored and all tokens use bidirectional attention. Defaults to True,
                unlike timm.
        """
        B, N, C = x.shape
        attn_mask = self._get_attention_mask(x, mask=mask, is_causal=is_causal)
        qkv = (
            self.qkv(x)
            .reshape(B, N, 3, self.num_heads, self.head_dim)
            .permute(2, 0, 3, 1, 4)
        )
        q, k, v = qkv.unbind(0)
        q, k = self.q_norm(q), self.k_norm(k)

        if self.fused_attn:
            # Type ignore because only new torch versions support this.
            x = F.scaled_dot_product_attention(  # type: ignore[attr-defined]
                q,
                k,
                v,
                attn_mask=attn_mask,
                dropout_p=self.attn_drop.p if self.training else 0.0,
            )
        else:
            assert False, "Only fused attention is supported for now."
            # TODO: Implement non-fused attention.
            q = q * self.scale  # type: ignore[unreachable]
            attn = q @ k.transpose(-2, -1)
            attn = attn.softmax(dim=-1)
            attn = self.attn_drop(attn)
            x = attn @ v

        x = x.transpose(1, 2).reshape(B, N, C)
        x = self.proj(x)
        x = self.proj_drop(x)
        return x

    def _get_attention_mask(
        self, x: Tensor, mask: Optional[Tensor], is_causal: bool = True
    ) -> Optional[Tensor]:
        """Generates an attention mask for causal attention.

        Args:
            x:
                Input tensor of shape (batch_size, sequence_length, channels).
            mask:
                Mask tensor of shape (batch_size, sequence_length) indicating which tokens
                should be masked. Ignored if is_causal is False.
            is_causal:
                Whether to apply causal attention to masked tokens. If False, returns None
                so all tokens use bidirectional attention. Defaults to True, unlike timm.

        Returns:
            Attention mask of shape (batch_size, 1, sequence_length, sequence_length),
            or None if is_causal is False or mask is None.
        """
        B, N = x.shape[:2]

        # Only apply causal attention if is_causal is True and mask is not None.
        attn_mask = None
        if is_causal and mask is not None:
            attn_mask = x.new_ones(size=(B, N, N), dtype=torch.bool).tril(diagonal=0)
            # mask has shape (B, N)
            mask = (~mask).unsqueeze(1).expand(B, N, N).bool()
            attn_mask = torch.logical_or(attn_mask, mask)
            attn_mask = attn_mask.unsqueeze(1)  # (B, 1, N, N)
        return attn_mask


# Type ignore because superclass has Any types.
class MaskedCausalBlock(Block):  # type: ignore[misc]
    """Identical to timm.models.vision_transformer.Block, but uses PrefixCausalAttention
    instead of Attention. Please check the source code of the timm.models.vision_transformer.Block
    class for input parameters.

    The implementation is based on AIM [0].

    - [0]: AIM, 2024, https://arxiv.org/abs/2401.08541
    """

    def __init__(  # type: ignore[no-untyped-def]
        self,
        *args,
        **kwargs,
    ) -> None:
        """Initializes the MaskedCausalBlock with the specified parameters. Please check the source code of the timm.models.vision_transformer.Block
        class for input parameters.

        """
        super().__init__(
            *args,
            **kwargs,
        )
        # Keep only the kwargs that timm's Attention accepts. Block-level kwargs
        # such as mlp_ratio do not apply to the attention layer.
        attention_kwargs = {
            key: value
            for key, value in kwargs.items()
            if key in inspect.signature(Attention.__init__).parameters
        }
        self.attn = MaskedCausalAttention(
            *args,
            **attention_kwargs,
        )

    def forward(
        self, x: Tensor, mask: Optional[Tensor] = None, is_causal: bool = True
    ) -> Tensor:
        """Forward pass of the attention block.

        Args:
            x:
                Input tensor of shape (batch_size, sequence_length, channels).
            mask:
                Mask of shape (batch_size, sequence_length) indicating which tokens
                should be masked. Tokens where the mask is True will only be used for
                causal attention, while unmasked tokens are used for bidirectional
                attention. If the mask is None, all tokens are used for bidirectional
                attention. Ignored if is_causal is False.
            is_causal:
                Whether to apply causal attention to masked tokens. If False, the mask
                is ignored and all tokens use bidirectional attention. Defaults to True,
                unlike timm.

        Returns:
            Output tensor after applying the attention block.
        """
        x = x + self.drop_path1(
            self.ls1(self.attn(self.norm1(x), mask=mask, is_causal=is_causal))
        )
        x = x + self.drop_path2(self.ls2(self.mlp(self.norm2(x))))
        return x


# Type ignore because superclass has Any types.
class MaskedCausalVisionTransformer(VisionTransformer):  # type: ignore[misc]
    """Vision transformer with masked causal attention based on AIM [0]. Please check the source code of the timm.models.vision_transformer.VisionTransformer
    class for input parameters.

    - [0]: AIM, 2024, https://arxiv.org/abs/2401.08541
    """

    def __init__(  # type: ignore[no-untyped-def]
        self,
        *args,
        **kwargs,
    ) -> None:
        """Initializes the MaskedCausalVisionTransformer with the specified parameters. Please check the source code of the timm.models.vision_transformer.VisionTransformer
        class for input parameters.

        """
        kwargs.setdefault("block_fn", MaskedCausalBlock)
        super().__init__(
            *args,
            **kwargs,
        )

    def forward_features(
        self, x: Tensor, mask: Optional[Tensor] = None, is_causal: bool = True
    ) -> Tensor:
        """Forward pass of the model without the classification head.

        Args:
            x:
                Input tensor of shape (batch_size, sequence_length, channels).
            mask:
                Mask of shape (batch_size, sequence_length) indicating which tokens
                should be masked. Tokens where the mask is True will only be used for
                causal attention, while unmasked tokens are used for bidirectional
                attention. If the mask is None, all tokens are used for bidirectional
                attention. Ignored if is_causal is False.
            is_causal:
                Whether to apply causal attention to masked tokens. If False, the mask
                is ignored and all tokens use bidirectional attention. Defaults to True,
                unlike timm.

        Returns:
            Output tensor after applying the transformer blocks.
        """
        x = self.patch_embed(x)
        x = self._pos_embed(x)
        x = self.patch_drop(x)
        x = self.norm_pre(x)
        if self.grad_checkpointing and not jit.is_scripting():
            blocks = [
                partial(block, mask=mask, is_causal=is_causal) for block in self.blocks
            ]
            x = _checkpoint_seq(blocks, x)
        else:
            for block in self.blocks:
                x = block(x, mask=mask, is_causal=is_causal)
        x = self.norm(x)
        return x
