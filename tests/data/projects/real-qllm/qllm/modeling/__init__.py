# ruff: noqa: F401

from .base import AutoQuantizedModelForCausalLM

all = ["AutoQuantizedModelForCausalLM"]
