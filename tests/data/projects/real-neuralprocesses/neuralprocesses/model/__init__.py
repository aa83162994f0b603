from .ar import *
from .elbo import *
from .loglik import *
from .model import *
from .predict import *
