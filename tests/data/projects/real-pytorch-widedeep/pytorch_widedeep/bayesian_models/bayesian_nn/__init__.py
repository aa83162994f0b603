from pytorch_widedeep.bayesian_models.bayesian_nn.modules import (
    BayesianLinear,
    BayesianEmbedding,
)
