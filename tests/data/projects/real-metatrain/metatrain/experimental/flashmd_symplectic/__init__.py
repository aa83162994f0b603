from metatrain.experimental.flashmd_symplectic.model import FlashMDSymplectic
from metatrain.experimental.flashmd_symplectic.trainer import Trainer


__model__ = FlashMDSymplectic
__trainer__ = Trainer

__authors__ = [
    ("Johannes Spies <johannes.spies@epfl.ch>", "@johannes-spies"),
    ("Filippo Bigi <filippo.bigi@epfl.ch>", "@frostedoyster"),
]

__maintainers__ = [
    ("Johannes Spies <johannes.spies@epfl.ch>", "@johannes-spies"),
    ("Filippo Bigi <filippo.bigi@epfl.ch>", "@frostedoyster"),
]
