from vocos.pretrained import Vocos


__version__ = "0.1.0"
