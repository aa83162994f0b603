from pytorch_widedeep.bayesian_models.tabular.bayesian_linear.bayesian_wide import (
    BayesianWide,
)
