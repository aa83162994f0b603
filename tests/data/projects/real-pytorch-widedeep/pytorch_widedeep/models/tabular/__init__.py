from pytorch_widedeep.models.tabular.mlp import (
    TabMlp,
    TabMlpDecoder,
    SelfAttentionMLP,
    ContextAttentionMLP,
)
from pytorch_widedeep.models.tabular.linear import Wide
from pytorch_widedeep.models.tabular.resnet import TabResnet, TabResnetDecoder
from pytorch_widedeep.models.tabular.tabnet import TabNet, TabNetDecoder
from pytorch_widedeep.models.tabular.transformers import (
    SAINT,
    TabPerceiver,
    FTTransformer,
    TabFastFormer,
    TabTransformer,
)
