from .consistency import (
    SupAdversarialGeneratorLoss,
    SupAdversarialDiscriminatorLoss,
    UnsupAdversarialGeneratorLoss,
    UnsupAdversarialDiscriminatorLoss,
)
from .uair import UAIRGeneratorLoss
from .base import DiscriminatorLoss, GeneratorLoss, DiscriminatorMetric
