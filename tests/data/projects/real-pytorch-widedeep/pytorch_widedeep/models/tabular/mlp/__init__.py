from pytorch_widedeep.models.tabular.mlp.tab_mlp import TabMlp, TabMlpDecoder
from pytorch_widedeep.models.tabular.mlp.self_attention_mlp import SelfAttentionMLP
from pytorch_widedeep.models.tabular.mlp.context_attention_mlp import (
    ContextAttentionMLP,
)
