# use this folder for storing third party code that cannot be installed using pip/conda
