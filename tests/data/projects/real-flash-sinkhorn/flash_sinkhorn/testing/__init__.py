"""Reference implementations and tests shipped with the package."""

__all__: list[str] = []
