from .filter import PdfFilter
