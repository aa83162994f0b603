from .process import index, jsonify_language, preprocess_language, preprocess_videos, unify_batches
