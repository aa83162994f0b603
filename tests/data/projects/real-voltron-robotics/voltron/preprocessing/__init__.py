from .process import extract_frames, preprocess_language, unify_batches
