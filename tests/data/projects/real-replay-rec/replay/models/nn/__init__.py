from .sequential import Bert4Rec, SasRec
