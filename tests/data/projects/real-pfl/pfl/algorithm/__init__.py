# Copyright © 2023-2024 Apple Inc.

from .base import FederatedAlgorithm, NNAlgorithmParams
from .federated_averaging import FederatedAveraging
from .fedprox import AdaptMuOnMetricCallback, FedProx, FedProxParams
from .scaffold import SCAFFOLD
