from .adversarial import AdversarialStrategy
