# This file is a part of the `allegro` package. Please see LICENSE and README at the root for information on using it.
from .allegro_models import AllegroModel
from .param_groups import MuonParamGroups

__all__ = ["AllegroModel", "MuonParamGroups"]
