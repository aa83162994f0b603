class Keys:
    # obs keys
    LEAVES: str = "novae_leaves"
    DOMAINS_PREFIX: str = "novae_domains_"
    IS_VALID_OBS: str = "neighborhood_valid"
    SLIDE_ID: str = "novae_sid"

    # obsm keys
    REPR: str = "novae_latent"
    REPR_CORRECTED: str = "novae_latent_corrected"
    HISTO_EMBEDDINGS: str = "histo_embeddings"

    # obsp keys
    ADJ: str = "spatial_distances"
    ADJ_LOCAL: str = "spatial_distances_local"
    ADJ_VIEW: str = "spatial_distances_view"

    # var keys
    VAR_MEAN: str = "mean"
    VAR_STD: str = "std"
    IS_KNOWN_GENE: str = "in_vocabulary"
    HIGHLY_VARIABLE: str = "highly_variable"
    USE_GENE: str = "novae_use_gene"

    # layer keys
    COUNTS_LAYER: str = "counts"

    # uns keys
    NOVAE_UNS: str = "novae_attrs"
    OBSM_KEY: str = "obsm_key"

    # misc keys
    UNS_TISSUE: str = "novae_tissue"
    ADATA_INDEX: str = "adata_index"
    N_BATCHES: str = "n_batches"
    NOVAE_VERSION: str = "novae_version"

    # LLM domain labeling
    OPENAI_API_KEY: str = "OPENAI_API_KEY"
    ANTHROPIC_API_KEY: str = "ANTHROPIC_API_KEY"
    LABEL_SUFFIX: str = "label"
    CONFIDENCE_SCORE: str = "confidence_score"


class Nums:
    # training constants
    EPS: float = 1e-8
    MIN_DATASET_LENGTH: int = 50_000
    MAX_DATASET_LENGTH_RATIO: float = 0.02
    INIT_PROTO_CELL_SAMPLING_SIZE: int = 100_000
    ZERO_SHOT_CELL_SAMPLING_SIZE: int = 1_000_000
    WARMUP_EPOCHS: int = 1

    # distances constants and thresholds (in microns)
    CELLS_CHARACTERISTIC_DISTANCE: int = 20  # characteristic distance between two cells, in microns
    MAX_MEAN_DISTANCE_RATIO: float = 8

    # genes constants
    N_HVG_THRESHOLD: int = 500
    MIN_GENES_FOR_HVG: int = 100
    MIN_GENES: int = 20

    # swav head constants
    SWAV_EPSILON: float = 0.05
    SINKHORN_ITERATIONS: int = 3
    QUEUE_SIZE: int = 2
    QUEUE_WEIGHT_THRESHOLD_RATIO: float = 0.99

    # misc nums
    MEAN_NGH_TH_WARNING: float = 3.5
    LAZY_LOADING_SIZE_THRESHOLD: int = 500_000_000  # use lazy loading above this number (here, 1M cells * 500 genes)
    RATIO_VALID_CELLS_TH: float = 0.7
    HE_PATCH_WIDTH: int = 224
