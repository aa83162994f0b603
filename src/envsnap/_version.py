"""envsnap's version: the bottom of the import graph, so any module may read it without importing the
package's public API (``envsnap/__init__.py`` serves that lazily)."""

__version__ = "0.1.0"
