from .fad import *
from .clap_score import *