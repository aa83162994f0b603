from neuromancer.modules import activations
from neuromancer.modules import blocks
from neuromancer.modules import functions
from neuromancer.modules import solvers
from neuromancer.modules import lopo
from neuromancer.modules import function_encoder
