# This file is part of sbi, a toolkit for simulation-based inference. sbi is licensed
# under the Apache License Version 2.0, see <https://www.apache.org/licenses/>

from sbi.inference.posteriors.direct_posterior import DirectPosterior
from sbi.inference.posteriors.ensemble_posterior import EnsemblePosterior
from sbi.inference.posteriors.filtered_direct_posterior import FilteredDirectPosterior
from sbi.inference.posteriors.importance_posterior import ImportanceSamplingPosterior
from sbi.inference.posteriors.mcmc_posterior import MCMCPosterior
from sbi.inference.posteriors.npe_a_posterior import NPE_A_Posterior
from sbi.inference.posteriors.posterior_parameters import (
    DirectPosteriorParameters,
    FilteredDirectPosteriorParameters,
    ImportanceSamplingPosteriorParameters,
    MCMCPosteriorParameters,
    RejectionPosteriorParameters,
    VIPosteriorParameters,
    VectorFieldPosteriorParameters,
)
from sbi.inference.posteriors.rejection_posterior import RejectionPosterior
from sbi.inference.posteriors.vector_field_posterior import VectorFieldPosterior
from sbi.inference.posteriors.vi_posterior import VIPosterior

__all__ = [
    "DirectPosterior",
    "EnsemblePosterior",
    "NPE_A_Posterior",
    "ImportanceSamplingPosterior",
    "MCMCPosterior",
    "RejectionPosterior",
    "VectorFieldPosterior",
    "VIPosterior",
    "DirectPosteriorParameters",
    "FilteredDirectPosteriorParameters",
    "ImportanceSamplingPosteriorParameters",
    "MCMCPosteriorParameters",
    "RejectionPosteriorParameters",
    "VectorFieldPosteriorParameters",
    "VIPosteriorParameters",
    "FilteredDirectPosterior",
]
