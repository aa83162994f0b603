from .label import label_domains
