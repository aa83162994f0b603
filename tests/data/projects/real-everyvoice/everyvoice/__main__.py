from everyvoice.cli import app

app()
