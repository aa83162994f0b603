from . import linalg, models, nn, utils
from .auxiva_ip import AuxIVA_IP
from .auxiva_ip2 import AuxIVA_IP2
from .base import DRBSSBase, SourceModelBase, Window, window_types
from .beamformer import GEVBeamformer, MVDRBeamformer, MWFBeamformer
from .fftconvolve import fftconvolve
from .five import FIVE
from .loader import load_separator_model, load_separator
from .models import GaussModel, LaplaceModel, NMFModel, source_models
from .nn import SepAlgo
from .scaling import minimum_distortion, minimum_distortion_l2_phase, projection_back
from .stft import STFT
from .t_iss import T_ISS
from .utils import select_most_energetic
from .wpe import WPE
