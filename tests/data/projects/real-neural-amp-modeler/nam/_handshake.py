class HandshakeError(Exception):
    """
    Raised if a handshake fails
    """

    pass
