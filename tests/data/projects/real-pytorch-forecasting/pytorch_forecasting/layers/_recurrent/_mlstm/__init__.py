"""mLSTM layer"""

from pytorch_forecasting.layers._recurrent._mlstm.cell import mLSTMCell
from pytorch_forecasting.layers._recurrent._mlstm.layer import mLSTMLayer
from pytorch_forecasting.layers._recurrent._mlstm.network import mLSTMNetwork

__all__ = ["mLSTMCell", "mLSTMLayer", "mLSTMNetwork"]
