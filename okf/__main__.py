from okf.cli import main

main()
