from .bcvae import *
from .bvae import *