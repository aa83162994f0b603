# flake8: noqa

from catalyst.runners.runner import Runner
from catalyst.runners.supervised import ISupervisedRunner, SupervisedRunner


__all__ = [
    "Runner",
    "ISupervisedRunner",
    "SupervisedRunner",
]
