from .LSD import LSD
from .STOI import STOI
from .PESQ import PESQ
from .SDR import SDR
from .DNSMOS import DNSMOS
from .SpeechBERTScore import SpeechBERTScore

__all__ = [
    "LSD",
    "STOI",
    "PESQ",
    "SDR",
    "DNSMOS",
    "SpeechBERTScore",
]
