from pytorch_widedeep.models.text import (
    HFModel,
    BasicRNN,
    AttentiveRNN,
    StackedAttentiveRNN,
)
from pytorch_widedeep.models.image import Vision
from pytorch_widedeep.models.tabular import (
    SAINT,
    Wide,
    TabMlp,
    TabNet,
    TabResnet,
    TabPerceiver,
    FTTransformer,
    TabFastFormer,
    TabMlpDecoder,
    TabNetDecoder,
    TabTransformer,
    SelfAttentionMLP,
    TabResnetDecoder,
    ContextAttentionMLP,
)
from pytorch_widedeep.models.wide_deep import WideDeep
from pytorch_widedeep.models.model_fusion import ModelFuser
