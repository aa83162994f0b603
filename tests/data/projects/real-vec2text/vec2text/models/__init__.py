from .corrector_encoder import CorrectorEncoderModel  # noqa: F401
from .corrector_encoder_from_logits import CorrectorEncoderFromLogitsModel  # noqa: F401
from .inversion import InversionModel  # noqa: F401
from .inversion_unet import InversionModelUnet  # noqa: F401
from .inversion_bow import InversionModelBagOfWords  # noqa: F401
from .inversion_decoder import InversionModelDecoderOnly  # noqa: F401
from .inversion_from_logits import InversionFromLogitsModel  # noqa: F401
from .inversion_from_logits_emb import InversionFromLogitsEmbModel  # noqa: F401
from .inversion_na import InversionModelNonAutoregressive  # noqa: F401
from .model_utils import (  # noqa: F401
    EMBEDDER_MODEL_NAMES,
    EMBEDDING_TRANSFORM_STRATEGIES,
    FREEZE_STRATEGIES,
    load_embedder_and_tokenizer,
    load_encoder_decoder,
)
