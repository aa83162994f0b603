from bs_roformer.inference import proc_folder

if __name__ == "__main__":
    proc_folder(None) 