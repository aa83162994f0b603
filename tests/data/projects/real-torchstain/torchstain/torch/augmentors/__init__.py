from .macenko import TorchMacenkoAugmentor
