from muscriptor.main import main

main()
