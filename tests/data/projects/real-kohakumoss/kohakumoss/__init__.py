"""KohakuMoss: finetuning framework for MOSS-Image."""

__version__ = "0.1.0"
