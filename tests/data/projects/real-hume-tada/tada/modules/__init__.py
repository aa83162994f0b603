from .acoustic_spkr_verf import AcousticSpkrVerf
from .decoder import Decoder
from .encoder import Encoder
from .tada import TadaForCausalLM

__all__ = ["TadaForCausalLM", "Encoder", "Decoder", "AcousticSpkrVerf"]
