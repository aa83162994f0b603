"""
saev is a Python package for training sparse autoencoders (SAEs) on vision transformers (ViTs) in PyTorch.

The main entrypoint to the package is in `__main__`; use `python -m saev --help` to see the options and documentation for the script.

.. include:: ./guide.md

.. include:: ./related-work.md

.. include:: ./reproduce.md

.. include:: ./inference.md
"""
