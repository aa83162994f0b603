# (C) Copyright 2026 Anemoi contributors.
#
# This software is licensed under the terms of the Apache Licence Version 2.0
# which can be obtained at http://www.apache.org/licenses/LICENSE-2.0.
#
# In applying this licence, ECMWF does not waive the privileges and immunities
# granted to it by virtue of its status as an intergovernmental organisation
# nor does it submit to any jurisdiction.

"""Checkpoint loading strategy implementations for the orchestration layer."""

from .base import LoadingStrategy
from .state import TrainingState
from .strategies import ColdStartLoader
from .strategies import TransferLearningLoader
from .strategies import WarmStartLoader
from .strategies import WeightsOnlyLoader
from .utils import filter_state_dict

__all__ = [
    "ColdStartLoader",
    "LoadingStrategy",
    "TrainingState",
    "TransferLearningLoader",
    "WarmStartLoader",
    "WeightsOnlyLoader",
    "filter_state_dict",
]
