# Copyright (c) NXAI GmbH.
# This software may be used and distributed according to the terms of the NXAI Community License Agreement.

from .api_adapter.forecast import ForecastModel
from .base import load_model
from .models.tirex import TiRexZero

__all__ = ["load_model", "ForecastModel"]
