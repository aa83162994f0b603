from .classifier import Classifier
from .categorical import CategoricalClassifier
from .binary import BinaryClassifier
from .multilabel import MultiLabelClassifier
