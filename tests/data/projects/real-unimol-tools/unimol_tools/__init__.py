from .predict import MolPredict
from .predictor import UniMolRepr
from .train import MolTrain
