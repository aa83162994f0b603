"""Tide model."""

from pytorch_forecasting.models.tide._tide import TiDEModel
from pytorch_forecasting.models.tide._tide_dsipts import TIDE, TIDE_pkg_v2
from pytorch_forecasting.models.tide._tide_pkg import TiDEModel_pkg
from pytorch_forecasting.models.tide.sub_modules import _TideModule

__all__ = ["_TideModule", "TiDEModel", "TiDEModel_pkg", "TIDE", "TIDE_pkg_v2"]
