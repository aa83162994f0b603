from .s3fd import S3FD
