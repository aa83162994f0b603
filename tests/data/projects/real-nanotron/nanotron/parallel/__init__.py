# flake8: noqa
from nanotron.parallel.context import ParallelContext
