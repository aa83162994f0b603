from .base import (
    BaseModel,
    BaseBiEncoderModel,
    BiEncoderSpanModel,
    StreamingSpanModel,
    BaseUniEncoderModel,
    BiEncoderTokenModel,
    UniEncoderSpanModel,
    UniEncoderTokenModel,
    UniEncoderSpanRelexModel,
    UniEncoderTokenRelexModel,
    UniEncoderSpanDecoderModel,
    UniEncoderTokenDecoderModel,
)
