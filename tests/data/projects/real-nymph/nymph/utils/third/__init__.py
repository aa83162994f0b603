# -*- coding: utf-8 -*-
from .pdf_parse import pdf_split_fn, pdf_label_parse
from .doc_parse import doc_split_fn, doc_label_parse