# Copyright © 2023-2024 Apple Inc.

from .diagonal_gaussian import DiagonalGaussian, diagonal_standard_gaussian
from .distribution import Distribution
from .log_float import LogFloat
from .mixture import Mixture
