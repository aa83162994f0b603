from .model_export import export_sam_model
