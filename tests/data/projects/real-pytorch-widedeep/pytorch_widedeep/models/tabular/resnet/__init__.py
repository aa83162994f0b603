from pytorch_widedeep.models.tabular.resnet.tab_resnet import (
    TabResnet,
    TabResnetDecoder,
)
