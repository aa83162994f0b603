from .apply_filters import apply_filters
