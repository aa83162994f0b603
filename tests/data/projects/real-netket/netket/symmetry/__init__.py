from netket._src.symmetry.representation import Representation
from netket._src.symmetry.labeled_representation import LabeledRepresentation
from netket._src.symmetry.translation_representation import TranslationRepresentation
from netket._src.symmetry.canonical_representation import (
    canonical_representation,
)
from netket._src.symmetry.spin_flip_representation import (
    spin_flip_representation,
)

from . import group

from netket.utils import _auto_export

_auto_export(__name__)
