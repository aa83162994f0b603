"""Evaluation utilities: perplexity, needle-in-a-haystack, memory tracking, WikiText-2."""
