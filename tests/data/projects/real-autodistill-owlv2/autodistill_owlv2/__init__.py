from autodistill_owlv2.owlv2_model import OWLv2

__version__ = "0.1.1"
