from .cnn import *
from .ddpm import *
from .flow import *
from .gan import *
from .gnn import *
from .rnn import *
from .transformer import *
from .vae import *