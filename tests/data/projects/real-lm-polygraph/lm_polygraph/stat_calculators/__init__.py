from .stat_calculator import StatCalculator
from .initial_state import InitialStateCalculator
from .greedy_probs import (
    GreedyProbsCalculator,
)
from .greedy_probs_blackbox import (
    BlackboxGreedyTextsCalculator,
)
from .semantic_classes_claim_to_samples import SemanticClassesClaimToSamplesCalculator
from .attention_forward_pass import AttentionForwardPassCalculator
from .greedy_lm_probs import GreedyLMProbsCalculator
from .greedy_visual_probs import GreedyProbsVisualCalculator
from .sample_visual import SamplingGenerationVisualCalculator
from .greedy_lm_visual_probs import GreedyLMProbsVisualCalculator
from .cross_encoder_visual_similarity import (
    CrossEncoderSimilarityMatrixVisualCalculator,
)
from .prompt_visual import (
    PromptVisualCalculator,
    SamplingPromptVisualCalculator,
    ClaimPromptVisualCalculator,
)
from .prompt import (
    PromptCalculator,
    SamplingPromptCalculator,
    ClaimPromptCalculator,
)
from .attention_eliciting_prompt import (
    AttentionElicitingPromptCalculator,
)
from .claim_level_prompts import (
    CLAIM_EXTRACTION_PROMPTS,
    MATCHING_PROMPTS,
    OPENAI_FACT_CHECK_PROMPTS,
)
from .entropy import EntropyCalculator
from .sample import (
    SamplingGenerationCalculator,
    BlackboxSamplingGenerationCalculator,
)
from .greedy_alternatives_nli import (
    GreedyAlternativesNLICalculator,
    GreedyAlternativesFactPrefNLICalculator,
)
from .bart_score import BartScoreCalculator
from .model_score import ModelScoreCalculator
from .embeddings import EmbeddingsCalculator
from .statistic_extraction import TrainingStatisticExtractionCalculator
from .ensemble_token_data import EnsembleTokenLevelDataCalculator
from .semantic_matrix import SemanticMatrixCalculator
from .raw_input import RawInputCalculator
from .greedy_semantic_matrix import (
    GreedySemanticMatrixCalculator,
    ConcatGreedySemanticMatrixCalculator,
)
from .cross_encoder_similarity import CrossEncoderSimilarityMatrixCalculator
from .greedy_cross_encoder_similarity import (
    GreedyCrossEncoderSimilarityMatrixCalculator,
)
from .extract_claims import ClaimsExtractor
from .infer_causal_lm_calculator import InferCausalLMCalculator
from .semantic_classes import SemanticClassesCalculator
from .attention_forward_pass_visual import AttentionForwardPassCalculatorVisual
from .vllm_logprobs_extraction import VLLMLogprobsExtractionCalculator
