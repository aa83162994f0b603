#!/usr/bin/env python3
from .cli.main import cli

def main():
    """Main entry function"""
    cli()

if __name__ == '__main__':
    main() 