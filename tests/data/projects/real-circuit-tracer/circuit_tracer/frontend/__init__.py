from circuit_tracer.frontend.local_server import Server, serve

__all__ = [
    "Server",
    "serve",
]
