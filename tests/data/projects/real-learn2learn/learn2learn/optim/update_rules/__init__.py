#!/usr/bin/env python3

from .differentiable_sgd import DifferentiableSGD
