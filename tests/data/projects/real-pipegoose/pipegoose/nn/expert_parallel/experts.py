"""DON'T USE THIS MODULE: Under development."""
from abc import ABC


class Expert(ABC):
    pass
