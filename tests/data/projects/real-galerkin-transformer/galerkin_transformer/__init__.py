from galerkin_transformer.layers import *
from galerkin_transformer.utils import *
from galerkin_transformer.utils_ft import *
from galerkin_transformer.ft import *
from galerkin_transformer.model import *
