'''
Copyright (C) 2019-2024 Sovrasov V. - All Rights Reserved
 * You may use, distribute and modify this code under the
 * terms of the MIT license.
 * You should have received a copy of the MIT license with
 * this file. If not visit https://opensource.org/licenses/MIT
'''


from .flops_counter import FLOPS_BACKEND, get_model_complexity_info
from .utils import flops_to_string, params_to_string

__all__ = [
    "get_model_complexity_info",
    "flops_to_string",
    "params_to_string",
    "FLOPS_BACKEND",
    ]
