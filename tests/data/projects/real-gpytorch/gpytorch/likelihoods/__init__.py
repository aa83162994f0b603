#!/usr/bin/env python3

from .bernoulli_likelihood import BernoulliLikelihood
from .beta_likelihood import BetaLikelihood
from .gaussian_likelihood import (
    _GaussianLikelihoodBase,
    DirichletClassificationLikelihood,
    FixedNoiseGaussianLikelihood,
    GaussianLikelihood,
    GaussianLikelihoodWithMissingObs,
)
from .laplace_likelihood import LaplaceLikelihood
from .likelihood import _OneDimensionalLikelihood, Likelihood
from .likelihood_list import LikelihoodList
from .multitask_gaussian_likelihood import _MultitaskGaussianLikelihoodBase, MultitaskGaussianLikelihood
from .noise_models import HeteroskedasticNoise
from .softmax_likelihood import SoftmaxLikelihood
from .student_t_likelihood import StudentTLikelihood

__all__ = [
    "_GaussianLikelihoodBase",
    "_OneDimensionalLikelihood",
    "_MultitaskGaussianLikelihoodBase",
    "BernoulliLikelihood",
    "BetaLikelihood",
    "DirichletClassificationLikelihood",
    "FixedNoiseGaussianLikelihood",
    "GaussianLikelihood",
    "GaussianLikelihoodWithMissingObs",
    "HeteroskedasticNoise",
    "LaplaceLikelihood",
    "Likelihood",
    "LikelihoodList",
    "MultitaskGaussianLikelihood",
    "SoftmaxLikelihood",
    "StudentTLikelihood",
]
