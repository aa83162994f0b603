class AutoTokenizer:
    """
    Undo
    """

    def __init__(self):
        """Initialize AutoTokenizer."""
        pass
