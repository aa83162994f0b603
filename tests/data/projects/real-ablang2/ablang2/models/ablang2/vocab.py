
ablang_vocab = {
    "<": 0,    # Start token
    "-": 21,   # Padding token
    ">": 22,   # End token
    "*": 23,   # Mask token
    "X": 24,   # Unknown (residue) token
    "|": 25,   # Separation (of heavy and light chain) token
    "M": 1, 
    "R": 2, 
    "H": 3, 
    "K": 4, 
    "D": 5, 
    "E": 6, 
    "S": 7, 
    "T": 8, 
    "N": 9, 
    "Q": 10, 
    "C": 11,
    "G": 12, 
    "P": 13, 
    "A": 14, 
    "V": 15, 
    "I": 16, 
    "F": 17, 
    "Y": 18, 
    "W": 19, 
    "L": 20
}