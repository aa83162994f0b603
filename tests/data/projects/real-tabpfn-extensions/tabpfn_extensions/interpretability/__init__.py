try:
    from . import decoder_readout, feature_selection, pdp, shap, shapiq
    from .decoder_readout import class_vote, get_decoder_readout, plot_decoder_readout
    from .feature_selection import FeatureSelectionResult
    from .shap import shapiq_to_shap_explanation
except ImportError:
    raise ImportError(
        "Please install tabpfn-extensions with the 'interpretability' extra: pip install 'tabpfn-extensions[interpretability]'",
    )
__all__ = [
    "feature_selection",
    "shapiq",
    "pdp",
    "shap",
    "decoder_readout",
    "FeatureSelectionResult",
    "shapiq_to_shap_explanation",
    "get_decoder_readout",
    "class_vote",
    "plot_decoder_readout",
]
