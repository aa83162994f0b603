from .avspeech_dataset import AVSpeechDataset
from .wham_dataset import WhamDataset
from .whamr_dataset import WhamRDataset
from .dns_dataset import DNSDataset
from .librimix_dataset import LibriMix
from .wsj0_mix import Wsj0mixDataset
from .musdb18_dataset import MUSDB18Dataset
from .sms_wsj_dataset import SmsWsjDataset
from .kinect_wsj import KinectWsjMixDataset
from .fuss_dataset import FUSSDataset
from .dampvsep_dataset import DAMPVSEPSinglesDataset
from .vad_dataset import LibriVADDataset

__all__ = [
    "AVSpeechDataset",
    "WhamDataset",
    "WhamRDataset",
    "DNSDataset",
    "LibriMix",
    "Wsj0mixDataset",
    "MUSDB18Dataset",
    "SmsWsjDataset",
    "KinectWsjMixDataset",
    "FUSSDataset",
    "DAMPVSEPSinglesDataset",
    "LibriVADDataset",
]
