# SPDX-FileCopyrightText: 2022-present deepset GmbH <info@deepset.ai>
#
# SPDX-License-Identifier: Apache-2.0

from .errors import DocumentStoreError, DuplicateDocumentError, MissingDocumentError

__all__ = ["DocumentStoreError", "DuplicateDocumentError", "MissingDocumentError"]
