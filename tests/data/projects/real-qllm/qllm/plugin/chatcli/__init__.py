from .generation import generate, generate_stream
from .inference import chat_loop
from .chatio import DistChatIO, SimpleChatIO
