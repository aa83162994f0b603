from .rvc import RVC
from .trainer import RVCTrainer
from .dataset import prepare
from .synthesizer import SynthesizerTrnMs768NSFsid
from .pretrained import pretrained_checkpoints
from .f0 import load_rmvpe, RMVPE, F0Extractor
from .hubert import load_hubert, HubertModel, HubertFeatureExtractor
from .auto_loader import auto_loaded_model
