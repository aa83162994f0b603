from fairseq2.data.data_pipeline import CollateOptionsOverride as CollateOptionsOverride
from fairseq2.data.data_pipeline import Collater as Collater
from fairseq2.data.data_pipeline import DataPipelineBuilder as DataPipelineBuilder
from fairseq2.data.data_pipeline import SequenceData as SequenceData
from fairseq2.data.data_pipeline import create_bucket_sizes as create_bucket_sizes
