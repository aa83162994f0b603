from torch import nn


class MoELayer(nn.Module):
    pass
