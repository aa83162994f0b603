# SPDX-FileCopyrightText: The Docling Contributors
# SPDX-License-Identifier: MIT

from docling.pipeline.standard_pdf_pipeline import StandardPdfPipeline


class ThreadedStandardPdfPipeline(StandardPdfPipeline):
    """Backwards compatible import for ThreadedStandardPdfPipeline."""
