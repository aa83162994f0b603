"""Copyright (c) Microsoft Corporation. Licensed under the MIT license."""

from aurora.foundry.client.api import SubmissionError, submit
from aurora.foundry.client.foundry import FoundryClient
from aurora.foundry.common.channel import BlobStorageChannel

__all__ = [
    "BlobStorageChannel",
    "FoundryClient",
    "submit",
    "SubmissionError",
]
