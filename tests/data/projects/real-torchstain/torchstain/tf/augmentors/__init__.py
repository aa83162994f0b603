from .macenko import TensorFlowMacenkoAugmentor
