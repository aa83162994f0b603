from .app import app

def main():
    app.launch()

if __name__ == "__main__":
    main()
