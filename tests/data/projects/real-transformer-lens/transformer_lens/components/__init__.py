"""Hooked Transformer Components.

This module contains all the components (e.g. :class:`Attention`, :class:`MLP`, :class:`LayerNorm`)
needed to create many different types of generative language models. They are used by
:class:`transformer_lens.HookedTransformer`.
"""

# Independent classes
from .abstract_attention import AbstractAttention
from .layer_norm import LayerNorm
from .layer_norm_pre import LayerNormPre
from .pos_embed import PosEmbed
from .rms_norm import RMSNorm
from .rms_norm_pre import RMSNormPre
from .token_typed_embed import TokenTypeEmbed
from .unembed import Unembed

# Only dependent on independent modules
from .attention import Attention
from .bert_mlm_head import BertMLMHead
from .bert_nsp_head import BertNSPHead
from .bert_pooler import BertPooler
from .embed import Embed
from .grouped_query_attention import GroupedQueryAttention
from .mlps.gated_mlp import GatedMLP
from .mlps.mlp import MLP

# Interdependent modules
from .bert_block import BertBlock
from .bert_embed import BertEmbed
from .mlps.moe import MoE
from .transformer_block import TransformerBlock
from .t5_attention import T5Attention
from .t5_block import T5Block
