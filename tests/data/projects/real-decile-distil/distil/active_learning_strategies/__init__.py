# __init__.py
# Author: Apurva Dani <apurvadani@gmail.com>

from .adversarial_bim import AdversarialBIM
from .adversarial_deepfool import AdversarialDeepFool
from .badge import BADGE
from .bayesian_active_learning_disagreement_dropout import BALDDropout
from .core_set import CoreSet
from .entropy_sampling import EntropySampling
from .entropy_sampling_dropout import EntropySamplingDropout
from .fass import FASS
from .glister import GLISTER
from .gradmatch_active import GradMatchActive
from .kmeans_sampling import KMeansSampling
from .least_confidence import LeastConfidence
from .least_confidence_dropout import LeastConfidenceDropout
from .margin_sampling import MarginSampling
from .margin_sampling_dropout import MarginSamplingDropout
from .random_sampling import RandomSampling
from .submod_sampling import SubmodSampling

__version__ = '0.1'
