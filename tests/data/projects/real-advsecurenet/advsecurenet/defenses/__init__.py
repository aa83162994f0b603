from advsecurenet.defenses.adversarial_training import AdversarialTraining

__all__ = ["AdversarialTraining"]
