# Copyright (c) Open-MMLab. All rights reserved.

__version__ = '1.0.1'
short_version = __version__
