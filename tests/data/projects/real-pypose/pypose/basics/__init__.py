# functions implemented in this module are needed by lietensor module
from .ops import pm, cumops, cummul, cumprod, cumops_, cummul_, cumprod_
