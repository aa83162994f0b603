# Copyright Contributors to the Pyro project.
# SPDX-License-Identifier: Apache-2.0


from numpyro.infer.barker import BarkerMH
from numpyro.infer.elbo import (
    ELBO,
    RenyiELBO,
    Trace_ELBO,
    TraceEnum_ELBO,
    TraceGraph_ELBO,
    TraceMeanField_ELBO,
)
from numpyro.infer.ensemble import AIES, ESS
from numpyro.infer.gibbs import CustomGibbs, DiscreteGibbs, Gibbs
from numpyro.infer.hmc import HMC, NUTS
from numpyro.infer.hmc_gibbs import HMCECS, DiscreteHMCGibbs, HMCGibbs
from numpyro.infer.importance import psis_diagnostic
from numpyro.infer.initialization import (
    init_to_feasible,
    init_to_mean,
    init_to_median,
    init_to_sample,
    init_to_uniform,
    init_to_value,
)
from numpyro.infer.mcmc import MCMC
from numpyro.infer.mixed_hmc import MixedHMC
from numpyro.infer.sa import SA
from numpyro.infer.svi import SVI
from numpyro.infer.util import (
    Predictive,
    initialize_model,
    log_likelihood,
)

from . import autoguide, calibration, reparam

__all__ = [
    "AIES",
    "autoguide",
    "calibration",
    "init_to_feasible",
    "init_to_mean",
    "init_to_median",
    "init_to_sample",
    "init_to_uniform",
    "init_to_value",
    "initialize_model",
    "log_likelihood",
    "psis_diagnostic",
    "reparam",
    "BarkerMH",
    "CustomGibbs",
    "DiscreteGibbs",
    "DiscreteHMCGibbs",
    "ELBO",
    "ESS",
    "Gibbs",
    "HMC",
    "HMCECS",
    "HMCGibbs",
    "MCMC",
    "MixedHMC",
    "NUTS",
    "Predictive",
    "RenyiELBO",
    "SA",
    "SVI",
    "Trace_ELBO",
    "TraceEnum_ELBO",
    "TraceGraph_ELBO",
    "TraceMeanField_ELBO",
]
