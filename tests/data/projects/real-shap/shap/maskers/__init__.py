from ._composite import Composite
from ._fixed import Fixed
from ._fixed_composite import FixedComposite
from ._image import Image
from ._masker import Masker
from ._output_composite import OutputComposite
from ._tabular import Impute, Independent, Partition
from ._text import Text

__all__ = [
    "Composite",
    "Fixed",
    "FixedComposite",
    "Image",
    "Masker",
    "OutputComposite",
    "Impute",
    "Independent",
    "Partition",
    "Text",
]
