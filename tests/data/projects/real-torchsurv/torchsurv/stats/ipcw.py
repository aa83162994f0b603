from __future__ import annotations

import warnings

import torch

from torchsurv.stats import kaplan_meier
from torchsurv.tools.validators import SurvivalInputs

__all__ = [
    "get_ipcw",
    "_inverse_censoring_dist",
]


# pylint: disable=anomalous-backslash-in-string
def get_ipcw(
    event: torch.Tensor,
    time: torch.Tensor,
    new_time: torch.Tensor | None = None,
) -> torch.Tensor:
    r"""Calculate the inverse probability censoring weights (IPCW).

    Args:
        event (torch.Tensor, bool):
            Event indicator of size n_samples (= True if event occurred).
        time (torch.Tensor, float):
            Event or censoring time of size n_samples.
        new_time (torch.Tensor, float, optional):
            New time at which to evaluate the IPCW.
            Defaults to ``time``.
    Returns:
        torch.Tensor: IPCW evaluated at ``new_time``.

    Examples:
            >>> _ = torch.manual_seed(42)
            >>> n = 5
            >>> event = torch.randint(low=0, high=2, size=(n,), dtype=torch.bool)
            >>> time = torch.randint(low=1, high=100, size=(n,), dtype=torch.float)
            >>> new_time = torch.randint(low=1, high=100, size=(n * 2,), dtype=torch.float)
            >>> get_ipcw(event, time)  # ipcw evaluated at time
            tensor([1.8750, 1.2500, 3.7500, 0.0000, 1.2500])
            >>> get_ipcw(event, time, new_time)  # ipcw evaluated at new_time
            tensor([1.8750, 1.8750, 3.7500, 3.7500, 0.0000, 1.2500, 0.0000, 1.2500, 1.2500,
                    1.2500])

    Note:
        The inverse probability of censoring weight at time :math:`t` is defined by

        .. math::
            \omega(t) = 1 / \hat{D}(t),

        where :math:`\hat{D}(t)` is the Kaplan-Meier estimate of the censoring distribution, :math:`P(D>t)`.


    """

    # time on which to evaluate IPCW
    if new_time is None:  # if none, return ipcw of same size as time
        new_time = time

    device = event.device
    if time.device != device or new_time.device != device:
        warnings.warn(
            f"Not all tensors on same device. Got event: {device}, time: {time.device}, new_time: {new_time.device}. Casting to event device: {device}",
            stacklevel=2,
        )
        time = time.to(device)
        new_time = new_time.to(device)

    if not (torch.jit.is_scripting() or torch.jit.is_tracing()):
        _surv = SurvivalInputs(event=event, time=time)
        event, time = _surv.event, _surv.time

    # fit KM censoring estimator
    km = kaplan_meier.KaplanMeierEstimator(device=device)
    km(event, time, censoring_dist=True)

    # predict censoring distribution at time
    ct = km.predict(new_time)

    # calculate ipcw
    mask = ct > 0
    ipcw = torch.zeros_like(new_time, dtype=time.dtype)
    ipcw[mask] = _inverse_censoring_dist(ct[mask])

    return ipcw


def _inverse_censoring_dist(ct: torch.Tensor) -> torch.Tensor:
    """Compute inverse of the censoring distribution.

    Args:
        ct (torch.Tensor):
            Estimated censoring distribution.
            Must be strictly positive.

    Returns:
        torch.Tensor: 1/ct if ct > 0, else 1.

    Examples:
        >>> _ = torch.manual_seed(42)
        >>> ct = torch.randn((4,))
        >>> _inverse_censoring_dist(ct)
        tensor([2.9701, 7.7634, 4.2651, 4.3415])

    """
    if torch.any(ct == 0.0):
        zero_indices = torch.nonzero(ct.eq(0.0)).squeeze()
        zero_indices_list = zero_indices.tolist()  # Explicitly convert to list
        warnings.warn(
            f"Censoring distribution zero at time points: {zero_indices_list}. Returning ones as weight",
            stacklevel=2,
        )
    weight = 1.0 / ct
    weight = torch.ones_like(ct) / ct
    return weight


if __name__ == "__main__":
    import doctest

    # Run doctest
    results = doctest.testmod()
    if results.failed == 0:
        print("All tests passed.")
