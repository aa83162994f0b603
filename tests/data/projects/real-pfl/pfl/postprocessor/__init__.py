# Copyright © 2023-2024 Apple Inc.

from .base import Postprocessor
from .metrics import SummaryMetrics
