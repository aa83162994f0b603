# Copyright (c) 2023 Microsoft
# Licensed under The MIT License [see LICENSE for details]

# flake8: noqa
from .prompt_compressor import PromptCompressor
from .version import VERSION as __version__

__all__ = ["PromptCompressor"]
