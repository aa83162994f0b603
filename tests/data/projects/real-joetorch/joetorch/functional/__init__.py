from joetorch.functional.loss_functions import *
from joetorch.functional.representations import *
from joetorch.functional.positional_embeddings import *