# This file is a part of the `allegro` package. Please see LICENSE and README at the root for information on using it.
from ._contract import Contracter
from ._channels import MakeWeightedChannels

__all__ = [Contracter, MakeWeightedChannels]
