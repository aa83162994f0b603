# Copyright 2022-2024 MosaicML Streaming authors
# SPDX-License-Identifier: Apache-2.0

"""Base module for downloading/uploading files from/to cloud storage."""
# isort: off
from streaming.base.storage.download import (CloudDownloader, S3Downloader, SFTPDownloader,
                                             GCSDownloader, OCIDownloader, AzureDownloader,
                                             AzureDataLakeDownloader, HFDownloader,
                                             DatabricksUnityCatalogDownloader, DBFSDownloader,
                                             AlipanDownloader, LocalDownloader)
from streaming.base.storage.upload import (AzureDataLakeUploader, AzureUploader, CloudUploader,
                                           GCSUploader, HFUploader, LocalUploader, OCIUploader,
                                           S3Uploader)

__all__ = [
    'CloudUploader',
    'S3Uploader',
    'GCSUploader',
    'OCIUploader',
    'LocalUploader',
    'AzureUploader',
    'AzureDataLakeUploader',
    'HFUploader',
    'CloudDownloader',
    'S3Downloader',
    'SFTPDownloader',
    'GCSDownloader',
    'OCIDownloader',
    'AzureDownloader',
    'AzureDataLakeDownloader',
    'HFDownloader',
    'DatabricksUnityCatalogDownloader',
    'DBFSDownloader',
    'AlipanDownloader',
    'LocalDownloader',
]
