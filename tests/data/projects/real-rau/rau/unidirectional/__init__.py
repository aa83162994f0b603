from .unidirectional import Unidirectional, ForwardResult
from .stateless import (
    StatelessUnidirectional,
    StatelessLayerUnidirectional,
    StatelessReshapingLayerUnidirectional
)
from .positional import PositionalUnidirectional
from .composed import ComposedUnidirectional
from .dropout import DropoutUnidirectional
from .embedding import EmbeddingUnidirectional
from .output import OutputUnidirectional
from .residual import ResidualUnidirectional, StatelessResidualUnidirectional
