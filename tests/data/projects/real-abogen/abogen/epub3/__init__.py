from .exporter import EPUB3PackageBuilder, build_epub3_package

__all__ = ["EPUB3PackageBuilder", "build_epub3_package"]
