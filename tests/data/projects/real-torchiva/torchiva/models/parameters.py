from enum import Enum

eps_models = {
    "laplace": 1e-5,
    "gauss": 1e-5,
    "nmf": 1e-5,
}
