#!/usr/bin/env python3

from . import datasets
