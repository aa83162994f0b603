from .find_cost import find_cost
from .find_network import find_network
from .find_permutation import find_permutation
from .find_pooling import find_pooling
from .find_recurrent_net import find_recurrent_net
from .find_inference_network import find_inference_network
from .find_summary_network import find_summary_network
from .find_distribution import find_distribution
