# ruff: noqa: F401
from .cifar_c import CIFAR10C, CIFAR100C
from .cifar_h import CIFAR10H
from .cifar_n import CIFAR10N, CIFAR100N
