"""
stereo_matching.models — Model sub-packages.

Each sub-package self-registers on import via MODEL_REGISTRY.register().
"""
