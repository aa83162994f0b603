from ...transforms.UMNN.monotonicnormalizer import MonotonicNormalizer, IntegrandNet
from ...transforms.UMNN.autoregressive import MaskedUMNNAutoregressiveTransform
from ...transforms.UMNN.coupling import UMNNCouplingTransform
