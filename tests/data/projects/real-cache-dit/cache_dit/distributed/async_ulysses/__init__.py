from .registry import AsyncUlyssesPlanner, AsyncUlyssesRegistry, MethodPatchSpec

__all__ = [
  "AsyncUlyssesPlanner",
  "AsyncUlyssesRegistry",
  "MethodPatchSpec",
]
