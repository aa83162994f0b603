name = "smplpytorch"
