"""Constants used throughout the dependency module."""

# Placeholder for index mapping initialization
INDEX_MAPPING_PLACEHOLDER = None

# Maximum recursion depth for various graph traversals
MAX_RECURSION_DEPTH = 500

# Maximum legal dimension (used for sanity checking)
MAX_VALID_DIM = 100
