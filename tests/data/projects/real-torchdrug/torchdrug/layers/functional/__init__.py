from .functional import multinomial, masked_mean, mean_with_nan, shifted_softplus, multi_slice, multi_slice_mask, \
    as_mask, _extend, variadic_log_softmax, variadic_softmax, variadic_sum, variadic_mean, variadic_max, \
    variadic_cross_entropy, variadic_sort, variadic_topk, variadic_arange, variadic_randperm, variadic_sample,\
    variadic_meshgrid, variadic_to_padded, padded_to_variadic, one_hot, clipped_policy_gradient_objective, \
    policy_gradient_objective
from .embedding import transe_score, distmult_score, complex_score, simple_score, rotate_score
from .spmm import generalized_spmm, generalized_rspmm

__all__ = [
    "multinomial", "masked_mean", "mean_with_nan", "shifted_softplus", "multi_slice_mask", "as_mask",
    "variadic_log_softmax", "variadic_softmax", "variadic_sum", "variadic_mean", "variadic_max",
    "variadic_cross_entropy", "variadic_sort", "variadic_topk", "variadic_arange", "variadic_randperm",
    "variadic_sample", "variadic_meshgrid", "variadic_to_padded", "padded_to_variadic",
    "one_hot", "clipped_policy_gradient_objective", "policy_gradient_objective",
    "transe_score", "distmult_score", "complex_score", "simple_score", "rotate_score",
    "generalized_spmm", "generalized_rspmm",
]