"""CARE references."""

from bioimageio.spec.model.v0_5 import CiteEntry, Doi

CARE_REF = CiteEntry(
    text='Weigert, Martin, et al. "Content-aware image restoration: pushing the '
    'limits of fluorescence microscopy." Nature methods 15.12 (2018): 1090-1097.',
    doi=Doi("10.1038/s41592-018-0216-7"),
)
