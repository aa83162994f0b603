from neps.space.neps_spaces.neps_space import convert_operation_to_callable
from neps.utils.trial_io import load_trials_from_pickle

__all__ = [
    "convert_operation_to_callable",
    "load_trials_from_pickle",
]
