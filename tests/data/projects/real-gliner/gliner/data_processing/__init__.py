from .collator import (
    BiEncoderSpanDataCollator,
    StreamingSpanDataCollator,
    BiEncoderTokenDataCollator,
    UniEncoderSpanDataCollator,
    UniEncoderTokenDataCollator,
    UniEncoderSpanDecoderDataCollator,
    RelationExtractionSpanDataCollator,
    UniEncoderTokenDecoderDataCollator,
    RelationExtractionTokenDataCollator,
)
from .processor import (
    BaseProcessor,
    BaseBiEncoderProcessor,
    BiEncoderSpanProcessor,
    StreamingSpanProcessor,
    BiEncoderTokenProcessor,
    UniEncoderSpanProcessor,
    UniEncoderTokenProcessor,
    UniEncoderSpanDecoderProcessor,
    RelationExtractionSpanProcessor,
    UniEncoderTokenDecoderProcessor,
    RelationExtractionTokenProcessor,
)
from .tokenizer import WordsSplitter
