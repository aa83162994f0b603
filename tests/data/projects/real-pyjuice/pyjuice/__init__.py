import pyjuice.graph
import pyjuice.nodes
import pyjuice.distributions
import pyjuice.layer
import pyjuice.structures
import pyjuice.optim
import pyjuice.transformations
import pyjuice.queries
import pyjuice.io
import pyjuice.visualize

# TensorCircuit
from pyjuice.model import compile, TensorCircuit

# TensorCircuit layers
from pyjuice.layer import InputLayer, ProdLayer, SumLayer, ExternalParamsSumLayer

# Construction methods
from pyjuice.nodes import multiply, summate, inputs, set_block_size, structural_properties

# Distributions
from pyjuice.nodes import distributions

# LVD
from pyjuice.nodes.methods.lvd import LVDistiller

# Commonly-used transformations
from pyjuice.transformations import merge, blockify, unblockify, deepcopy

# IO
from pyjuice.io import load, save
