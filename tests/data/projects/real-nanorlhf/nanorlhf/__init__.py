__version__ = "1.0.0"
__name__ = "nanorlhf"
__description__ = "nanoRLHF: from-scratch journey into how LLMs and RLHF really work."
__author__ = "Kevin Ko"
