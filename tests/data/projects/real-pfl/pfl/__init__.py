# Copyright © 2023-2024 Apple Inc.

from . import aggregate, algorithm, data, internal, model, privacy
from .version import __version__
