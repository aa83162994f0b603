
from euclid.settings import xp as np 
from euclid.core.tensor import Tensor
from ..layer import Layer
class PositionalEncoding(Layer):

    def __init__(self, max_seq_len, d_model):
        super().__init__()
        self.max_seq_len=max_seq_len
        self.d_model=d_model
        position = np.arange(max_seq_len)[:, None]

        div_term = np.exp(
            np.arange(0, d_model, 2)
            * (-np.log(10000.0) / d_model)
        )

        pe = np.zeros((max_seq_len, d_model))

        pe[:, 0::2] = np.sin(position * div_term)
        pe[:, 1::2] = np.cos(position * div_term)

        self.pe = Tensor(pe)

    def forward(self, x):
        seq_len = x.shape[1]

        return x + self.pe[:seq_len]
    def get_config(self):
        return {"max_seq_len":self.max,"d_model":self.d_model}