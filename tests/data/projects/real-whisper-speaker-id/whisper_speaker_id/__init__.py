from .wsi import (
    load_model,
    load_audio,
    get_embedding,
    calculate_similarity,
    process_single_audio,
    process_audio_pair,
)

__version__ = "1.1.0"