from gmft.pdf_bindings.base import *
