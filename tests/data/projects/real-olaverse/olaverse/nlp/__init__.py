from olaverse.nlp.diacritizer import (
    Diacritizer,
    DiacNetDecoder,
    DiacNet2Decoder,
    DiacTagDecoder,
    diacritize_yoruba,
    diacritize_yoruba_dot_below,
    diacritize_igbo,
)
from olaverse.nlp.diacnet_utils import align as align_marks
from olaverse.nlp.language_detection import (
    detect_language,
    LIDLite5,
    LIDNeural5,
    LIDLite25,
    LIDNeural25,
    LIDLite608,
    LIDNeural608,
    LIDNeural5_1,
)
from olaverse.nlp.preprocessing import mask_pii, clean_text
from olaverse.nlp.tokenizer import Tokenizer
from olaverse.nlp.normalization import TTSNormalizer, NaijaNormalizer
from olaverse.nlp.retrieval import Reranker, Embedder
from olaverse.nlp.stopwords import (
    YORUBA_STOPWORDS,
    IGBO_STOPWORDS,
    HAUSA_STOPWORDS,
    PIDGIN_STOPWORDS,
    get_stopwords,
    filter_stopwords,
)

__all__ = [
    # Diacritization
    "Diacritizer",
    "DiacNetDecoder",
    "DiacNet2Decoder",
    "DiacTagDecoder",
    "align_marks",
    "diacritize_yoruba",
    "diacritize_yoruba_dot_below",
    "diacritize_igbo",
    # Language detection
    "detect_language",
    "LIDLite5",
    "LIDNeural5",
    "LIDLite25",
    "LIDNeural25",
    "LIDLite608",
    "LIDNeural608",
    "LIDNeural5_1",
    # Text preprocessing
    "mask_pii",
    "clean_text",
    # Tokenization
    "Tokenizer",
    # Normalization
    "TTSNormalizer",
    "NaijaNormalizer",
    # Retrieval
    "Reranker",
    "Embedder",
    # Stopwords
    "YORUBA_STOPWORDS",
    "IGBO_STOPWORDS",
    "HAUSA_STOPWORDS",
    "PIDGIN_STOPWORDS",
    "get_stopwords",
    "filter_stopwords",
]
