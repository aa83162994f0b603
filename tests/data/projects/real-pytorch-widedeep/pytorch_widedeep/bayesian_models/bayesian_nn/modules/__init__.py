from pytorch_widedeep.bayesian_models.bayesian_nn.modules.bayesian_linear import (
    BayesianLinear,
)
from pytorch_widedeep.bayesian_models.bayesian_nn.modules.bayesian_embedding import (
    BayesianEmbedding,
)
