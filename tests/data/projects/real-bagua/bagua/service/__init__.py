from .autotune_service import AutotuneService, AutotuneClient  # noqa: F401
