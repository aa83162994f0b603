from .nodes import SoftmaxNode
from .loss import HierarchicalSoftmaxLoss
from .metrics import greedy_accuracy, greedy_f1_score
from .inference import greedy_predictions
from .layers import HierarchicalSoftmaxLinear, HierarchicalSoftmaxLazyLinear
from .treedict import TreeDict