from apax.transfer_learning.parameter_transfer import (
    black_list_param_transfer,
    transfer_parameters,
)

__all__ = ["transfer_parameters", "black_list_param_transfer"]
