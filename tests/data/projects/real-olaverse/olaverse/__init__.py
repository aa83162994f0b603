from olaverse.nlp import (
    Tokenizer,
    diacritize_yoruba,
    diacritize_yoruba_dot_below,
    diacritize_igbo,
    detect_language,
    LIDLite5,
    LIDNeural5,
    LIDLite25,
    LIDNeural25,
    LIDLite608,
    LIDNeural608,
    LIDNeural5_1,
    mask_pii,
    clean_text,
    TTSNormalizer,
    NaijaNormalizer,
    Reranker,
    Embedder,
    YORUBA_STOPWORDS,
    IGBO_STOPWORDS,
    HAUSA_STOPWORDS,
    PIDGIN_STOPWORDS,
    get_stopwords,
    filter_stopwords,
)
from olaverse.speech import TTSPipeline, BaseAcousticModel, BaseVocoder, ExperimentalWarning
from olaverse.llm import LegalPeace, MIST, MISTTitleGenerator, MISTQuestionGenerator, QG_LANGUAGES
from olaverse.vision import PrismUpscaler, PrismDenoiser, PrismSteganography
from olaverse.data import load_dataset, list_datasets, dataset_info

__version__ = "0.4.1"

__all__ = [
    # NLP — diacritization
    "Tokenizer",
    "diacritize_yoruba",
    "diacritize_yoruba_dot_below",
    "diacritize_igbo",
    # NLP — language detection
    "detect_language",
    "LIDLite5",
    "LIDNeural5",
    "LIDLite25",
    "LIDNeural25",
    "LIDLite608",
    "LIDNeural608",
    "LIDNeural5_1",
    # NLP — preprocessing
    "mask_pii",
    "clean_text",
    # NLP — normalization
    "TTSNormalizer",
    "NaijaNormalizer",
    # NLP — retrieval
    "Reranker",
    "Embedder",
    # NLP — stopwords
    "YORUBA_STOPWORDS",
    "IGBO_STOPWORDS",
    "HAUSA_STOPWORDS",
    "PIDGIN_STOPWORDS",
    "get_stopwords",
    "filter_stopwords",
    # LLMs
    "LegalPeace",
    "MIST",
    "MISTTitleGenerator",
    "MISTQuestionGenerator",
    "QG_LANGUAGES",
    # Speech (Experimental)
    "TTSPipeline",
    "BaseAcousticModel",
    "BaseVocoder",
    "ExperimentalWarning",
    # Vision
    "PrismUpscaler",
    "PrismDenoiser",
    "PrismSteganography",
    # Datasets
    "load_dataset",
    "list_datasets",
    "dataset_info",
]
