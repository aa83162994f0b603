"""
plimai - A platform for building and deploying AI agents
"""

__version__ = "0.1.0"

"""plimai: Vision LLMs with LoRA and unified model zoo.""" 