from ._annotation import export_annotations, load_annotations, read_ndpa

__all__ = [
    "export_annotations",
    "load_annotations",
    "read_ndpa",
]
