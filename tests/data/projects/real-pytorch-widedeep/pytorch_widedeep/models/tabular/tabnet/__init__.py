from pytorch_widedeep.models.tabular.tabnet.tab_net import TabNet, TabNetDecoder
