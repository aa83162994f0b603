from pytorch_widedeep.models.tabular.linear.wide import Wide
