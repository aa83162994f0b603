from pytorch_widedeep.bayesian_models.tabular.bayesian_mlp.bayesian_tab_mlp import (
    BayesianTabMlp,
)
