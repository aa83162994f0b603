"""Optional framework integrations.

Nothing here is imported by ``import trainstream``; each integration imports
its framework lazily, so the core library keeps zero third-party dependencies.

    from trainstream.integrations.huggingface import TrainStreamTrainer
"""
