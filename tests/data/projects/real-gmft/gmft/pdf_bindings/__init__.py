from gmft.pdf_bindings.base import BasePage, BasePDFDocument, ImageOnlyPage

from gmft.pdf_bindings.pdfium import PyPDFium2Page, PyPDFium2Document
