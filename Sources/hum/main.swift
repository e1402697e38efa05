import HumCLI

Frontend.main()
