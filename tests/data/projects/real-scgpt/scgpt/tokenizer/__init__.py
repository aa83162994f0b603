from .gene_tokenizer import *
