from .bids import mark_component, write_components_tsv
