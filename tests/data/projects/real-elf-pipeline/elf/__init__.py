from .pipeline import Pipeline, PipelineConfig
from .partitioners import sequential_signatures
from .utils import Placement
from .zb_utils import replace_layer_with_layer_dw

__all__ = [
	"Pipeline",
	"PipelineConfig",
	"Placement",
	"sequential_signatures",
	"replace_layer_with_layer_dw",
	"replace_linear_with_linear_dw",
]
