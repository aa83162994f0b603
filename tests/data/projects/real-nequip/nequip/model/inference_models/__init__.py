# This file is a part of the `nequip` package. Please see LICENSE and README at the root for information on using it.

from .torchscript import load_torchscript_model
from .aotinductor import load_aotinductor_model
from .compiled import load_compiled_model

__all__ = ["load_torchscript_model", "load_aotinductor_model", "load_compiled_model"]
