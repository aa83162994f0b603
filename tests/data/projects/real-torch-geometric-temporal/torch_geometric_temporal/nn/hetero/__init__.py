from .heterogclstm import HeteroGCLSTM
