from .hifigan import *  # NOQA
from .melgan import *  # NOQA
from .parallel_wavegan import *  # NOQA
from .style_melgan import *  # NOQA
from .uhifigan import *  # NOQA
from .vqvae import *  # NOQA
