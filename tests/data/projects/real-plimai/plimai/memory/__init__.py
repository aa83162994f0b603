"""
plimai.memory

This package contains memory management utilities and classes.
"""

# Example placeholder for a memory utility
class MemoryBuffer:
    def __init__(self, size=100):
        self.size = size
        self.buffer = []
    def add(self, item):
        if len(self.buffer) >= self.size:
            self.buffer.pop(0)
        self.buffer.append(item)
    def get_all(self):
        return self.buffer

def init_memory():
    """Initialize memory resources."""
    pass 