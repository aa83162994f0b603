"""
plimai.llm

This package contains LLM provider classes and integrations.
"""
