# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved.

__version__ = "0.1.5"
