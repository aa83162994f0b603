"""Minimal cleaners for Burmese."""
import re


def basic_cleaners(text):
    return re.sub(r"\s+", " ", text.strip())


def burmese_cleaners(text):
    return re.sub(r"\s+", " ", text.strip())
