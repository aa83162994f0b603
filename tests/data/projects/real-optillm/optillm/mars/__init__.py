"""
MARS: Multi-Agent Reasoning System

A multi-agent reasoning system for enhanced mathematical problem solving,
inspired by systems like Gemini 2.5 Pro Deep Think and the IMO25 solver.
Leverages OpenRouter's reasoning API for deep mathematical thinking.
"""

from .mars import multi_agent_reasoning_system

__all__ = ['multi_agent_reasoning_system']