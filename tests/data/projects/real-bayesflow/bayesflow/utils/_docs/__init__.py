from ._populate_all import _add_imports_to_all
