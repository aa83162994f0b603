from .decoder import (
    SpanDecoder,
    TokenDecoder,
    SpanRelexDecoder,
    TokenRelexDecoder,
    SpanGenerativeDecoder,
    TokenGenerativeDecoder,
)
