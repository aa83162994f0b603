from taylor_series_linear_attention.attention import (
  TaylorSeriesLinearAttn,
  ChannelFirstTaylorSeriesLinearAttn
)

from taylor_series_linear_attention.poly_attention import (
  TaylorSeriesPolyAttention,
  taylor_series_poly_attention
)

from taylor_series_linear_attention.vit import ViT
