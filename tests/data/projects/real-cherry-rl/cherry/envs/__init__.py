#!/usr/bin/env python3

from .utils import *
