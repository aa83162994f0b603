# Copyright 2022-2024 MosaicML Streaming authors
# SPDX-License-Identifier: Apache-2.0

"""Module to write and read the dataset in Tabular format."""

from streaming.base.format.xsv.reader import CSVReader, TSVReader, XSVReader
from streaming.base.format.xsv.writer import CSVWriter, TSVWriter, XSVWriter

__all__ = ['CSVReader', 'CSVWriter', 'TSVReader', 'TSVWriter', 'XSVReader', 'XSVWriter']
