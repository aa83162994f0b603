#!/usr/bin/env python3

from .metaworld import MetaWorldML1, MetaWorldML10, MetaWorldML45
