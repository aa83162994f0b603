from .trainer import Trainer
from .testing import test
from .adversarial import AdversarialTrainer, AdversarialOptimizer
