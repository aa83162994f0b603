from oddasr.app import main

main()