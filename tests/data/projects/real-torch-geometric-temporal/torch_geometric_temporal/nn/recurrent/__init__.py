from .gconv_gru import GConvGRU
from .gconv_lstm import GConvLSTM
from .lrgcn import LRGCN
from .gc_lstm import GCLSTM
from .dygrae import DyGrEncoder
from .evolvegcnh import EvolveGCNH
from .evolvegcno import EvolveGCNO
from .dcrnn import DCRNN, BatchedDCRNN
from .temporalgcn import TGCN
from .temporalgcn import TGCN2
from .attentiontemporalgcn import A3TGCN
from .attentiontemporalgcn import A3TGCN2
from .mpnn_lstm import MPNNLSTM
from .agcrn import AGCRN
