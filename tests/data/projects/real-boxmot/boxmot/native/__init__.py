"""Internal C++ sources, build support, and low-level ABI bindings.

Native trackers are selected through :func:`boxmot.create_tracker`; this
package intentionally exposes no domain-facing tracker or ReID component API.
"""

__all__: tuple[str, ...] = ()
