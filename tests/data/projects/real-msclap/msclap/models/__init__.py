from . import clap 
from . import audio
from . import htsat
from . import config
from . import pytorch_utils
from . import htsat