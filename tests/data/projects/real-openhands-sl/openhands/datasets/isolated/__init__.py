from .autsl import AUTSLDataset
from .csl import CSLDataset
from .devisign import DeviSignDataset
from .gsl import GSLDataset
from .include import INCLUDEDataset
from .lsa64 import LSA64Dataset
from .wlasl import WLASLDataset
from .msasl import MSASLDataset
from .bosphorus22k import Bosphorus22kDataset
from .asllvd import ASLLVDDataset
from .rwth_phoenix_weather_signer03_cutout import RWTH_Phoenix_Signer03_Dataset
from .fingerspelling import FingerSpellingDataset

from .concat import ConcatDataset

__all__ = [
    "AUTSLDataset",
    "CSLDataset",
    "DeviSignDataset",
    "GSLDataset",
    "INCLUDEDataset",
    "LSA64Dataset",
    "WLASLDataset",
    "MSASLDataset",
    "Bosphorus22kDataset",
    "ASLLVDDataset",
    "RWTH_Phoenix_Signer03_Dataset",
    
    "ConcatDataset",
    "FingerSpellingDataset"
]
