from .basic import load_json, load_dict, load_csv, load_dataframe
from .pdf import load_pdf