from .alif import alif_forward, alif_recurrent
from .lif import lif_forward, lif_recurrent
