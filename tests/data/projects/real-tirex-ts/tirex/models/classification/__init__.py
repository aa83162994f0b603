# Copyright (c) NXAI GmbH.
# This software may be used and distributed according to the terms of the NXAI Community License Agreement.

from .gbm_classifier import TirexGBMClassifier
from .linear_classifier import TirexLinearClassifier
from .rf_classifier import TirexRFClassifier

__all__ = ["TirexLinearClassifier", "TirexRFClassifier", "TirexGBMClassifier"]
