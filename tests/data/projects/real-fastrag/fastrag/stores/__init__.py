from .plaid import PLAIDDocumentStore
