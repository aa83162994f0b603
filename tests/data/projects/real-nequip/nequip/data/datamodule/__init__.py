# This file is a part of the `nequip` package. Please see LICENSE and README at the root for information on using it.
from ._base_datamodule import NequIPDataModule
from ._ase_datamodule import ASEDataModule
from .sgdml_datamodule import sGDML_CCSD_DataModule
from ._3bpa_datamodule import NequIP3BPADataModule
from .tm23_datamodule import TM23DataModule
from .rmd17_datamodule import rMD17DataModule
from .md22_datamodule import MD22DataModule
from .samd23_datamodule import SAMD23DataModule
from .water_datamodule import WaterDataModule
from .coll_datamodule import COLLDataModule

__all__ = [
    "NequIPDataModule",
    "ASEDataModule",
    "sGDML_CCSD_DataModule",
    "rMD17DataModule",
    "MD22DataModule",
    "NequIP3BPADataModule",
    "TM23DataModule",
    "SAMD23DataModule",
    "WaterDataModule",
    "COLLDataModule",
]
