from .chatgpt import ChatGPT
from .ollama import Ollama
from .chatllm import ChatLLM