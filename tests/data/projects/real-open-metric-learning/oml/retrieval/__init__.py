from oml.retrieval.postprocessors.algo import AdaptiveThresholding, ConstantThresholding
from oml.retrieval.postprocessors.pairwise import PairwiseReranker
from oml.retrieval.retrieval_results import RetrievalResults
